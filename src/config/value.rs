//! Value typing: the declared key types, the key-table entry type used by the generated schema,
//! and number conversion (decimal with stacking size suffixes).

/// The declared type of a configuration key (config.md §1, "Value typing").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `true`, `false`, `0`, `1`, or no value.
    Boolean,
    /// Decimal integer with optional size suffixes.
    Int,
    /// Anything (bare, quoted or a bracketed group); may be restricted by a choice list.
    String,
    /// A bracketed group of elements (or an empty value).
    List,
    /// A bracketed group of sub-keys, checked against `KeyDef::sub`.
    Category,
    /// A pack format string, checked by the caller's format checker.
    Format,
}

impl Kind {
    /// The type name the reference prints in "expected a T".
    pub fn name(self) -> &'static str {
        match self {
            Kind::Boolean => "boolean",
            Kind::Int => "int",
            Kind::String => "string",
            Kind::List => "list",
            Kind::Category => "category",
            Kind::Format => "format",
        }
    }
}

/// One key of a method's key table (generated into `schema.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyDef {
    /// Key name at its level (`enabled` for `log.enabled`).
    pub name: &'static str,
    /// Full dotted path (`log.enabled`).
    pub path: &'static str,
    /// Declared type.
    pub kind: Kind,
    /// Default value as the reference spells it, unquoted; "" for an empty string/list and for
    /// categories.
    pub default: &'static str,
    /// The default as a number: suffixes expanded for ints, 1/0 for booleans, else 0.
    pub default_num: i64,
    /// Permitted values (empty: unrestricted). For lists, every element must be one of them.
    pub choices: &'static [&'static str],
    /// Inclusive lower limit, after suffix expansion.
    pub min: Option<i64>,
    /// Inclusive upper limit, after suffix expansion.
    pub max: Option<i64>,
    /// Accepted but undocumented in 11.3.1 (`(u)` in the appendix).
    pub undocumented: bool,
    /// Sub-keys of a category, sorted by name.
    pub sub: &'static [KeyDef],
}

impl KeyDef {
    /// Finds `name` (one level, exact match) in a sorted key table.
    pub fn find(table: &'static [KeyDef], name: &str) -> Option<&'static KeyDef> {
        table
            .binary_search_by(|d| byte_order(d.name.as_bytes(), name.as_bytes()))
            .ok()
            .map(|i| &table[i])
    }

    /// Finds a dotted path (`statistics_log.wait`) in a sorted key table.
    pub fn lookup(table: &'static [KeyDef], path: &str) -> Option<&'static KeyDef> {
        let mut defs = table;
        let mut found = None;
        for part in path.split('.') {
            let d = KeyDef::find(defs, part)?;
            defs = d.sub;
            found = Some(d);
        }
        found
    }
}

/// Byte-order comparison, inlined (key names are short; a `memcmp` call costs more).
#[inline]
fn byte_order(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

/// Converts a number token the way the reference does (strtoll base 10, then every suffix letter
/// multiplies: `b` ×1, `k` ×2^10, `m` ×2^20, `g` ×2^30, `t` ×2^40, `p` ×2^50, either case).
///
/// `buf[start..start + len]` is the token; like strtoll, the digit scan may run on past the
/// token's end while digits follow (only possible for tokens cut by a category window).
/// Returns `(true, value)` for a well-formed number, `(false, partial)` otherwise (the token is
/// then an identifier): no digits, a non-suffix letter, strtoll overflow, a multiplying suffix
/// on a negative number, or a shift that leaves the sign bit set. As in the reference, the
/// shift itself wraps (`16384P` is 2^64 and becomes 0).
pub(crate) fn convert_number(buf: &[u8], start: usize, len: usize) -> (bool, i64) {
    let token_end = start.saturating_add(len).min(buf.len());
    let mut i = start;
    let neg = buf.get(i) == Some(&b'-');
    if neg {
        i += 1;
    }
    let digits_start = i;
    let mut value: i64 = 0;
    let mut overflow = false;
    while let Some(&c) = buf.get(i) {
        if !c.is_ascii_digit() {
            break;
        }
        if !overflow {
            let d = i64::from(c - b'0');
            let next = value.checked_mul(10).and_then(|v| {
                if neg {
                    v.checked_sub(d)
                } else {
                    v.checked_add(d)
                }
            });
            match next {
                Some(v) => value = v,
                None => overflow = true,
            }
        }
        i += 1;
    }
    if i == digits_start {
        // No conversion: strtoll returns 0 and leaves the end pointer at the start.
        value = 0;
        i = start;
    }
    if overflow {
        return (false, if neg { i64::MIN } else { i64::MAX });
    }
    while i < token_end {
        let shift = match buf[i] {
            b'b' | b'B' => 0,
            b'k' | b'K' => 10,
            b'm' | b'M' => 20,
            b'g' | b'G' => 30,
            b't' | b'T' => 40,
            b'p' | b'P' => 50,
            _ => return (false, value),
        };
        i += 1;
        if shift == 0 {
            continue;
        }
        if value < 0 {
            return (false, value);
        }
        value = ((value as u64) << shift) as i64;
        if value < 0 {
            return (false, value);
        }
    }
    (true, value)
}

/// Expands a whole string as a size (`"100MB"` → 104857600); `None` if it is not a well-formed
/// number.
pub fn parse_size(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    match b.first() {
        Some(c) if *c == b'-' || c.is_ascii_digit() => {}
        _ => return None,
    }
    match convert_number(b, 0, b.len()) {
        (true, v) => Some(v),
        _ => None,
    }
}
