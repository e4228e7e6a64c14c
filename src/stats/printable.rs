//! The printable value of a statistic, the second field of a `statistics:` cursor's value
//! (statistics.md §1): `"<v>"` below a million, `"<v/10^6>M (<v>)"` below a billion,
//! `"<v/10^9>B (<v>)"` above, with integer division.

use std::fmt;

const MILLION: u64 = 1_000_000;
const BILLION: u64 = 1_000_000_000;

/// Displays a statistic's value the way the reference prints it. The reference formats the
/// value as unsigned, so a negative value prints as its 64-bit two's complement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Printable(pub i64);

impl fmt::Display for Printable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0 as u64;
        if v >= BILLION {
            write!(f, "{}B ({v})", v / BILLION)
        } else if v >= MILLION {
            write!(f, "{}M ({v})", v / MILLION)
        } else {
            write!(f, "{v}")
        }
    }
}

/// The printable value as a string.
pub fn printable(value: i64) -> String {
    Printable(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_boundary() {
        for (v, text) in [
            (0, "0"),
            (999_999, "999999"),
            (1_000_000, "1M (1000000)"),
            (1_999_999, "1M (1999999)"),
            (104_857_600, "104M (104857600)"),
            (999_999_999, "999M (999999999)"),
            (1_000_000_000, "1B (1000000000)"),
            (12_345_678_901, "12B (12345678901)"),
            (i64::MAX, "9223372036B (9223372036854775807)"),
            // The reference prints the value unsigned.
            (-1, "18446744073B (18446744073709551615)"),
            (i64::MIN, "9223372036B (9223372036854775808)"),
        ] {
            assert_eq!(printable(v), text, "{v}");
        }
    }
}
