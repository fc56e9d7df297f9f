//! `gpu --list` (and `sysinfo`'s GPU part): the adapters and their peaks as text, and
//! the [`Action`] that prints them in the requested format instead of measuring.

use crate::bench::resource::Action;
use crate::report::{export_fit, TextDoc};
use crate::util::term::{fit_table, fit_text};
use crate::util::units::{format_si, format_size};
use comfy_table::Table;
use std::io::Write;

/// `gpu --list`: detects the adapters and prints them ([`print_gpus`]) in the
/// common options' format and width.
pub(crate) fn action() -> Action {
    Box::new(|common, out| {
        let det = crate::hw::gpu::detect();
        let doc = TextDoc {
            value: &det,
            text: print_gpus,
        };
        export_fit(&doc, common.format, common.width, out)?;
        Ok(())
    })
}

/// The GPU adapters (`sysinfo` and `gpu --list`): one row each, then their peaks,
/// within `width` columns (`None`: no limit).
pub(crate) fn print_gpus(
    det: &crate::hw::gpu::GpuDetection,
    width: Option<usize>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if det.adapters.is_empty() {
        return write!(
            out,
            "{}",
            fit_text(det.note.as_deref().unwrap_or("no GPU adapter found"), width)
        );
    }
    let mut t = Table::new();
    t.load_preset(crate::util::term::PRESET).set_header(vec![
        "device", "name", "vendor", "type", "driver", "backend", "features", "limits",
    ]);
    fit_table(&mut t, width);
    for g in &det.adapters {
        let kind = if g.software {
            format!("{} (software)", g.device_type)
        } else {
            g.device_type.clone()
        };
        t.add_row(vec![
            g.index.to_string(),
            g.name.clone(),
            format!("{} 0x{:04x}:0x{:04x}", g.vendor, g.vendor_id, g.device_id),
            kind,
            format!("{} {}", g.driver, g.driver_info).trim().to_string(),
            g.backend.clone(),
            g.features.join(" "),
            format!(
                "buffer {}, binding {}, {} workgroups/dim",
                format_size(g.limits.max_buffer_size),
                format_size(g.limits.max_storage_buffer_binding_size),
                g.limits.max_compute_workgroups_per_dimension
            ),
        ]);
    }
    writeln!(
        out,
        "GPU adapters (--device N)\n{}",
        crate::util::term::table_text(&t)
    )?;
    let mut p = Table::new();
    p.load_preset(crate::util::term::PRESET)
        .set_header(vec!["device", "peak", "value", "source"]);
    fit_table(&mut p, width);
    for g in &det.adapters {
        // One row when every peak is unknown for the same reason (software adapters).
        if let Some((_, first)) = g.peaks.first() {
            if g.peaks
                .iter()
                .all(|(_, p)| p.value.is_none() && p.source == first.source)
            {
                p.add_row(vec![
                    g.index.to_string(),
                    "all".into(),
                    "unknown".into(),
                    first.source.clone(),
                ]);
                continue;
            }
        }
        for (k, v) in &g.peaks {
            let unit = match k.as_str() {
                "memory" => "B/s",
                "fp32" | "fp16" | "fp64" => "FLOP/s",
                _ => "OP/s",
            };
            p.add_row(vec![
                g.index.to_string(),
                k.clone(),
                v.value.map_or("unknown".into(), |x| format_si(x, unit)),
                v.source.clone(),
            ]);
        }
    }
    writeln!(
        out,
        "Theoretical GPU peaks\n{}",
        crate::util::term::table_text(&p)
    )
}
