//! `WT_CURSOR::bound`: a lower and an upper key that limit what the cursor's `next`, `prev`,
//! `search`, `search_near` and writes reach, until `reset` or `bound(action=clear)`.

use std::cmp::Ordering;

use crate::error::{Error, Result};
use crate::store::collate::{self, Order};
use crate::store::Seek;

use super::Cursor;

/// One bound: a packed key and whether it is part of the range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The key as packed.
    pub key: Vec<u8>,
    /// Whether the key itself is in the range.
    pub inclusive: bool,
}

/// The bounds a cursor has set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Keys below it (or at it, when not inclusive) are out of range.
    pub lower: Option<Bound>,
    /// Keys above it (or at it, when not inclusive) are out of range.
    pub upper: Option<Bound>,
}

/// `bound`'s configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundAction {
    /// `action=set,bound=lower|upper[,inclusive=]`.
    Set {
        /// The upper bound (else the lower).
        upper: bool,
        /// `inclusive` (default true).
        inclusive: bool,
    },
    /// `action=clear[,bound=lower|upper]`: both when no bound is named.
    Clear {
        /// `Some(true)`: the upper bound only, `Some(false)`: the lower only.
        upper: Option<bool>,
    },
}

impl BoundAction {
    /// Parses `bound`'s configuration with the reference's messages.
    pub fn parse(config: Option<&str>) -> Result<BoundAction> {
        let (mut action, mut which, mut inclusive) = ("set", "", true);
        let mut parser = crate::config::Parser::new(config.unwrap_or(""));
        while let Some(pair) = parser.next_pair() {
            let (key, value) = pair.map_err(Error::from)?;
            match key.text {
                "action" => action = value.text,
                "bound" => which = value.text,
                "inclusive" => match value.text {
                    "true" | "" => inclusive = true,
                    "false" => inclusive = false,
                    other => return Err(Error::invalid(format!("Value '{other}' is not a valid choice"))),
                },
                other => return Err(Error::invalid(format!("unknown configuration key '{other}'"))),
            }
        }
        let upper = match which {
            "upper" => Some(true),
            "lower" => Some(false),
            "" => None,
            other => return Err(Error::invalid(format!("Value '{other}' is not a valid choice"))),
        };
        match action {
            "set" => match upper {
                Some(upper) => Ok(BoundAction::Set { upper, inclusive }),
                None => Err(Error::invalid("a bound must be specified when setting bounds, either \"lower\" or \"upper\"")),
            },
            "clear" => Ok(BoundAction::Clear { upper }),
            other => Err(Error::invalid(format!("Value '{other}' is not a valid choice"))),
        }
    }
}

impl Bounds {
    /// Whether `key` lies in the range, keys ordered by `order` (the table's).
    pub fn contains(&self, order: Order<'_>, key: &[u8]) -> bool {
        let above_lower = self.lower.as_ref().is_none_or(|b| match collate::cmp(order, key, &b.key) {
            Ordering::Greater => true,
            Ordering::Equal => b.inclusive,
            Ordering::Less => false,
        });
        let below_upper = self.upper.as_ref().is_none_or(|b| match collate::cmp(order, key, &b.key) {
            Ordering::Less => true,
            Ordering::Equal => b.inclusive,
            Ordering::Greater => false,
        });
        above_lower && below_upper
    }

    /// Where an unpositioned step in direction `dir` starts: the bound on that side, if any.
    pub fn start(&self, dir: Seek) -> Option<(&[u8], Seek)> {
        match dir {
            Seek::Gt | Seek::Ge => self.lower.as_ref().map(|b| (&b.key[..], if b.inclusive { Seek::Ge } else { Seek::Gt })),
            Seek::Lt | Seek::Le => self.upper.as_ref().map(|b| (&b.key[..], if b.inclusive { Seek::Le } else { Seek::Lt })),
        }
    }

    /// Where `search_near` for `target` looks up from and down from, with the seek of each:
    /// the target itself (`Ge`, `Le`), except past a bound, where that side starts at the bound
    /// (a key below the lower bound looks from the lower bound up, one above the upper from it
    /// down).
    pub fn near_starts<'a>(
        bounds: Option<&'a Bounds>,
        order: Order<'_>,
        target: &'a [u8],
    ) -> ((&'a [u8], Seek), (&'a [u8], Seek)) {
        let outside = bounds.filter(|b| !b.contains(order, target));
        let up = match outside.and_then(|b| b.start(Seek::Gt)) {
            Some((lower, dir)) if collate::cmp(order, target, lower).is_le() => (lower, dir),
            _ => (target, Seek::Ge),
        };
        let down = match outside.and_then(|b| b.start(Seek::Lt)) {
            Some((upper, dir)) if collate::cmp(order, target, upper).is_ge() => (upper, dir),
            _ => (target, Seek::Le),
        };
        (up, down)
    }

    fn overlapping(&self, order: Order<'_>) -> bool {
        match (&self.lower, &self.upper) {
            (Some(l), Some(u)) => match collate::cmp(order, &l.key, &u.key) {
                Ordering::Greater => true,
                Ordering::Equal => !(l.inclusive && u.inclusive),
                Ordering::Less => false,
            },
            _ => false,
        }
    }
}

impl Cursor {
    /// `WT_CURSOR::bound`: sets (from the key that is set, which stays set) or clears a bound.
    /// Not on a positioned cursor; bounds that leave no key between them are refused.
    pub fn bound(&mut self, action: BoundAction) -> Result<()> {
        match action {
            BoundAction::Clear { upper } => {
                if let Some(bounds) = self.bounds.as_deref_mut() {
                    match upper {
                        Some(true) => bounds.upper = None,
                        Some(false) => bounds.lower = None,
                        None => self.bounds = None,
                    }
                }
                Ok(())
            }
            BoundAction::Set { upper, inclusive } => {
                self.require_key()?;
                if self.positioned {
                    return Err(Error::invalid("setting bounds on a positioned cursor is not allowed"));
                }
                let mut bounds = self.bounds.as_deref().cloned().unwrap_or_default();
                let bound = Some(Bound { key: self.key.raw().to_vec(), inclusive });
                if upper {
                    bounds.upper = bound;
                } else {
                    bounds.lower = bound;
                }
                if bounds.overlapping(self.table().collator().map(|c| &**c)) {
                    return Err(Error::invalid("The provided cursor bounds are overlapping"));
                }
                self.bounds = Some(Box::new(bounds));
                Ok(())
            }
        }
    }

    /// Whether the key that is set is outside the cursor's bounds. Inline, so that a cursor
    /// without bounds (nearly every one) pays one pointer test and no call frame.
    #[inline(always)]
    pub(super) fn key_out_of_bounds(&self) -> bool {
        match self.bounds.as_deref() {
            None => false,
            Some(bounds) => self.key_outside(bounds),
        }
    }

    #[inline(never)]
    fn key_outside(&self, bounds: &Bounds) -> bool {
        !bounds.contains(self.table.collator().map(|c| &**c), self.key.raw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(key: &str, inclusive: bool) -> Option<Bound> {
        Some(Bound { key: key.as_bytes().to_vec(), inclusive })
    }

    #[test]
    fn ranges_with_and_without_their_ends() {
        let b = Bounds { lower: bound("c", true), upper: bound("g", false) };
        assert!(!b.contains(None, b"b") && b.contains(None, b"c") && b.contains(None, b"f") && !b.contains(None, b"g"));
        assert_eq!(b.start(Seek::Gt), Some((&b"c"[..], Seek::Ge)));
        assert_eq!(b.start(Seek::Lt), Some((&b"g"[..], Seek::Lt)));
        assert!(Bounds { lower: bound("c", true), upper: bound("b", true) }.overlapping(None));
        assert!(Bounds { lower: bound("c", false), upper: bound("c", true) }.overlapping(None));
        assert!(!Bounds { lower: bound("c", true), upper: bound("c", true) }.overlapping(None));
        assert!(Bounds::default().contains(None, b"anything"));
    }

    #[test]
    fn configurations_and_their_errors() {
        assert_eq!(BoundAction::parse(Some("action=set,bound=lower")).unwrap(), BoundAction::Set { upper: false, inclusive: true });
        assert_eq!(
            BoundAction::parse(Some("bound=upper,inclusive=false")).unwrap(),
            BoundAction::Set { upper: true, inclusive: false }
        );
        assert_eq!(BoundAction::parse(Some("action=clear")).unwrap(), BoundAction::Clear { upper: None });
        assert_eq!(BoundAction::parse(Some("action=clear,bound=lower")).unwrap(), BoundAction::Clear { upper: Some(false) });
        assert!(BoundAction::parse(Some("action=set")).unwrap_err().to_string().contains("a bound must be specified"));
        assert!(BoundAction::parse(Some("action=bogus")).unwrap_err().to_string().contains("Value 'bogus' is not a valid choice"));
        assert!(BoundAction::parse(Some("nope=1")).is_err());
    }
}
