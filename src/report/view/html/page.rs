//! What every HTML page shares, below both `mod.rs` and the pages: the one stylesheet
//! and the page's start ([`head`]).

use crate::report::charts::esc;
use std::fmt::Write as _;

const CSS: &str = r#"
:root{--fg:#1b1f24;--mut:#57606a;--bd:#d0d7de;--ok:#2da44e;--bad:#cf222e;--acc:#0072b2}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);margin:0 auto;max-width:1280px;padding:16px 24px}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--bd);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.meta{color:var(--mut)}
table{border-collapse:collapse;width:100%;font-size:12.5px;margin:6px 0 12px}
.tw{overflow-x:auto}
td{overflow-wrap:break-word}
td.notes{min-width:200px}
td.src{font-size:12.5px;max-width:460px}
ol.why{font-size:12.5px;color:var(--mut)}
table.res td.notes{min-width:0;max-width:330px}
details>summary{cursor:pointer;color:var(--mut)}
.common{color:var(--mut);font-size:12.5px;margin:2px 0}
td.hcv{color:var(--bad)}
td.hcv::after{content:" *"}
.top{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;align-items:start}
@media (max-width:1000px){.top{grid-template-columns:1fr}}
th,td{border-bottom:1px solid var(--bd);padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa;font-weight:600}
td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
table.kv td:first-child{width:180px;color:var(--mut)}
.bar{display:inline-block;width:110px;height:10px;background:#eaeef2;border-radius:2px;vertical-align:middle;margin-right:6px;overflow:hidden}
.bar>span{display:block;height:100%;background:var(--ok)}
.over .bar>span{background:var(--bad)}
.bar.dist>span{background:#e69f00}
.legend{color:var(--mut);font-size:12px;margin:2px 0 12px}
.hbar{display:inline-block;width:180px;height:10px;background:#eaeef2;border-radius:2px;vertical-align:middle;margin-right:6px;overflow:hidden}
.hbar>span{display:block;height:100%}
.hbar.pb>span{background:var(--acc)}
.hbar.rf>span{background:#e69f00}
.over{color:var(--bad);font-weight:600}
td.eff{white-space:nowrap}
.flag{color:var(--bad);font-weight:700}
.warn{border-left:4px solid var(--bad);padding:2px 12px;margin:12px 0;background:#fff8f8}
.warn h2{margin-top:8px;border:0}
.notes{color:var(--mut);font-size:12px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:12px}
figure{margin:0;border:1px solid var(--bd);border-radius:6px;padding:8px}
figcaption{color:var(--mut);font-size:12px;margin-top:4px}
svg.chart{width:100%;height:auto;font-family:inherit}
svg .ct{font-size:13px;font-weight:600;text-anchor:middle}
svg .tx{font-size:10px;text-anchor:middle;fill:#444}
svg .ty{font-size:10px;text-anchor:end;fill:#444}
svg .ax{font-size:11px;text-anchor:middle;fill:#222}
svg .mk{font-size:10px;fill:#b00}
svg .lg{font-size:11px;fill:#222}
.ci{position:relative;display:inline-block;width:160px;height:12px;background:#f6f8fa;vertical-align:middle}
.ci .z{position:absolute;top:0;bottom:0;width:1px;background:#888}
.ci .r{position:absolute;top:3px;height:6px;background:var(--acc)}
.ci.ns .r{background:#aaa}
.ci.axis{background:none;height:14px;font-size:10px;font-weight:400;color:var(--mut);border-top:1px solid #888}
.ci.axis .t{position:absolute;top:1px;transform:translateX(-50%);white-space:nowrap}
.ci.axis .t.l{transform:none}.ci.axis .t.r{transform:translateX(-100%)}
footer{color:var(--mut);font-size:12px;margin:24px 0 8px}
@media print{body{max-width:none;padding:0;font-size:10pt}.top{grid-template-columns:1fr}.grid{display:block}figure{break-inside:avoid;margin-bottom:8px}h2{break-after:avoid}tr{break-inside:avoid}.bar>span,.ci .r{-webkit-print-color-adjust:exact;print-color-adjust:exact}}
"#;

/// The page's start: doctype, title, the one stylesheet, `<body>` (shared by every
/// page).
pub(super) fn head(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body>\n",
        esc(title)
    );
}
