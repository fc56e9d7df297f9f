//! The precision aliases every command accepts (`--precision` of `cpu` and `gpu`): one
//! table, so that `qp`, `hp`, `sp` and `dp` mean the same data type everywhere (the
//! course reports' names for quarter, half, single and double precision).

/// Alias → canonical precision name. `qp` (quarter precision) is the 8-bit integer
/// type the course reports measure with it: int8 dot products.
pub(crate) const ALIASES: [(&str, &str); 4] = [
    ("qp", "int8"),
    ("hp", "fp16"),
    ("sp", "fp32"),
    ("dp", "fp64"),
];

/// The canonical name of a `--precision` value: trimmed, lower-cased, an alias replaced
/// by the name it stands for. Whether the name is a precision the command measures is
/// the command's to check.
pub(crate) fn canonical(s: &str) -> String {
    let s = s.trim().to_ascii_lowercase();
    ALIASES
        .iter()
        .find(|(a, _)| *a == s)
        .map_or(s, |(_, name)| (*name).to_string())
}

/// The aliases for an error message's accepted form: `qp,hp,sp,dp`.
pub(crate) fn alias_list() -> String {
    ALIASES.map(|(a, _)| a).join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_map_to_their_names() {
        assert_eq!(canonical(" QP "), "int8");
        assert_eq!(canonical("hp"), "fp16");
        assert_eq!(canonical("Sp"), "fp32");
        assert_eq!(canonical("dp"), "fp64");
        assert_eq!(canonical("bf16"), "bf16");
        assert_eq!(alias_list(), "qp,hp,sp,dp");
    }
}
