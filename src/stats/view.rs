//! The data and positioning engine of a `statistics:` cursor (statistics.md §1), independent
//! of sessions: the owner hands it snapshots, it answers the cursor methods.
//!
//! Why a separate engine: a statistics cursor shares nothing with a table cursor but the
//! method table. Its values are a frozen snapshot (so a scan reports one consistent set), its
//! keys are ids of which only the computed ones are listed, and its quirks follow the
//! reference's `cur_stat.c`:
//!
//! * `next` / `prev`: from unpositioned, the first / last entry; past either end
//!   `WT_NOTFOUND`, and the cursor does not restart: it stays at the end (`prev` after walking
//!   off the end with `next` lands on the entry before the last, as in the reference).
//! * `search`: needs a key (`EINVAL` "requires key be set"); an id that is not listed is
//!   `WT_NOTFOUND` and keeps the key. Like the reference's, it does not count as positioning:
//!   a later `next` starts from the first entry.
//! * `reset`: drops key, value and position; the next `next`/`prev`/`search` takes a fresh
//!   snapshot.
//! * `get_key` / `get_value`: `EINVAL` "requires key be set" / "requires value be set" when
//!   not set.
//! * `set_value`: ignored (the reference's is a no-op).
//! * Every other method (`insert`, `update`, `remove`, `reserve`, `modify`, `search_near`,
//!   `compare`, `equals`, `largest_key`, `bound`, `reconfigure`, `get_raw_key_value`, `reopen`,
//!   `cache`): `ENOTSUP` [`UNSUPPORTED`]. Duplicating one (`open_cursor(NULL, cursor)`) is the
//!   session's `ENOTSUP` "unsupported object operation: statistics:"; it is never cached.
//!
//! Keys and values are kept packed, like a table cursor's: the key as format `i`, the value
//! as `SSq` (description, printable value, value). A raw cursor (`raw` config) hands out the
//! same bytes as one item, which is exactly the reference's raw encoding.

use std::io::Write as _;
use std::sync::LazyLock;

use super::family::Family;
use super::printable::Printable;
use crate::error::{Error, Kind, Result};
use crate::pack::{self, Arg, Format};

/// The values of one family, as `(id, value)` pairs sorted by id (which is description order).
/// A statistic the engine does not compute is simply absent.
pub type Snapshot = Vec<(i32, i64)>;

/// The message of every method a statistics cursor does not support.
pub const UNSUPPORTED: &str = "Unsupported cursor operation";

/// The error of every method a statistics cursor does not support (`ENOTSUP`).
pub fn unsupported() -> Error {
    Error::unsupported(UNSUPPORTED)
}

static KEY_FORMAT: LazyLock<Format> = LazyLock::new(|| Format::parse("i").expect("a valid format"));
static VALUE_FORMAT: LazyLock<Format> = LazyLock::new(|| Format::parse("SSq").expect("a valid format"));
static RAW_FORMAT: LazyLock<Format> = LazyLock::new(|| Format::parse("u").expect("a valid format"));

/// One statistic as `get_value` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The key.
    pub id: i32,
    /// The reference's description.
    pub description: &'static str,
    /// The value.
    pub value: i64,
}

impl Entry {
    /// The printable form of the value.
    pub fn printable(&self) -> Printable {
        Printable(self.value)
    }
}

/// What `set_key` left.
#[derive(Clone, Debug, PartialEq, Eq)]
enum KeyState {
    Unset,
    Set,
    /// A raw `set_key` whose item did not unpack: the next call needing the key reports it.
    Failed(Error),
}

/// The join statistics' descriptions, by id offset from [`JOIN_BASE`] (each set's are
/// prefixed with its join entry's name: "join: index:T:I: items iterated").
pub const JOIN_DESCRIPTIONS: [&str; 5] = [
    "accesses to the main table",
    "bloom filter false positives",
    "checks that conditions of membership are satisfied",
    "items inserted into a bloom filter",
    "items iterated",
];

/// The first join statistics id (`WT_STAT_JOIN_MAIN_ACCESS`).
pub const JOIN_BASE: i32 = 3000;

/// Each join entry's description prefix and statistics, in entry order.
pub type JoinSets = Vec<(String, [i64; 5])>;

/// `statistics:join`'s state: one set of the five join statistics per entry of the join
/// cursor, walked set after set, each copied from the join cursor when the walk enters it (as
/// the reference's). Its keys repeat from set to set.
struct JoinWalk {
    source: Box<dyn Fn() -> JoinSets + Send + Sync>,
    /// The set entered last, its prefix (None before any: the reference prints "(null)") and
    /// its values.
    at: usize,
    prefix: Option<String>,
    values: [i64; 5],
}

impl std::fmt::Debug for JoinWalk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinWalk").field("at", &self.at).field("prefix", &self.prefix).finish()
    }
}

impl JoinWalk {
    /// Enters set `at`; `WT_NOTFOUND` past either end.
    fn enter(&mut self, at: Option<usize>) -> Result<()> {
        let sets = (self.source)();
        let Some((prefix, values)) = at.and_then(|at| sets.get(at)) else { return Err(Error::quiet(Kind::NotFound)) };
        self.at = at.expect("found above");
        self.prefix = Some(prefix.clone());
        self.values = *values;
        Ok(())
    }

    fn restart(&mut self) {
        self.at = 0;
        self.prefix = None;
        self.values = [0; 5];
    }
}

/// A `statistics:` cursor's snapshot and position.
#[derive(Debug)]
pub struct StatsView {
    /// `statistics:join`: the sets of a join cursor instead of one snapshot.
    join: Option<JoinWalk>,
    family: Family,
    raw: bool,
    stats: Snapshot,
    /// `reset` happened: the next positioning call asks for a fresh snapshot.
    stale: bool,
    /// The reference's "not positioned" flag: set at open and reset, cleared by `next`/`prev`.
    unpositioned: bool,
    /// The current id: the application's key, or the entry landed on. `WT_NOTFOUND` keeps it,
    /// so `next`/`prev` continue from it.
    key: i32,
    key_state: KeyState,
    key_bytes: Vec<u8>,
    /// The snapshot index whose packed value `value_bytes` holds.
    value_at: Option<usize>,
    value_bytes: Vec<u8>,
}

impl StatsView {
    /// A view of `snapshot` (the values taken when the cursor opens). `raw` is the cursor's
    /// `raw` configuration. Entries outside `family` are dropped; the snapshot is sorted if it
    /// is not already.
    pub fn new(family: Family, snapshot: Snapshot, raw: bool) -> StatsView {
        StatsView {
            join: None,
            family,
            raw,
            stats: normalized(family, snapshot),
            stale: false,
            unpositioned: true,
            key: 0,
            key_state: KeyState::Unset,
            key_bytes: Vec::new(),
            value_at: None,
            value_bytes: Vec::new(),
        }
    }

    /// A view of a join cursor's statistics (`statistics:join`): `source` gives each entry's
    /// description prefix and values.
    pub fn new_join(source: Box<dyn Fn() -> JoinSets + Send + Sync>, raw: bool) -> StatsView {
        let mut view = StatsView::new(Family::DataSource, Vec::new(), raw);
        view.join = Some(JoinWalk { source, at: 0, prefix: None, values: [0; 5] });
        view
    }

    /// The family whose descriptions the view reports.
    pub fn family(&self) -> Family {
        self.family
    }

    /// The entries of the current snapshot.
    pub fn snapshot(&self) -> &[(i32, i64)] {
        &self.stats
    }

    /// Whether the next positioning call will ask for a fresh snapshot (after `reset`).
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    /// Whether a key and value are available (after a successful `next`, `prev` or `search`).
    pub fn is_positioned(&self) -> bool {
        self.value_at.is_some()
    }

    /// The format keys cross the API in: `i`, or one item (`u`) for a raw cursor.
    pub fn api_key_format(&self) -> &'static Format {
        if self.raw { &RAW_FORMAT } else { &KEY_FORMAT }
    }

    /// The format values cross the API in: `SSq`, or one item (`u`) for a raw cursor.
    pub fn api_value_format(&self) -> &'static Format {
        if self.raw { &RAW_FORMAT } else { &VALUE_FORMAT }
    }

    /// `set_key(id)`. The value of the last position stays readable until the next
    /// positioning call (the reference would pair it with the new key's description).
    pub fn set_key(&mut self, id: i32) {
        self.key = id;
        self.key_state = KeyState::Set;
        pack_key(id, &mut self.key_bytes);
    }

    /// `set_key` through the C shim: `pack` writes the application's arguments packed with
    /// [`api_key_format`](Self::api_key_format) (the id, or a raw item holding an `i`-packed
    /// id). A failure is kept and reported by the next call that needs the key.
    pub fn set_key_with(&mut self, pack: impl FnOnce(&Format, &mut Vec<u8>) -> Result<()>) {
        let mut bytes = std::mem::take(&mut self.key_bytes);
        bytes.clear();
        let id = pack(self.api_key_format(), &mut bytes).and_then(|()| unpack_key(&bytes));
        self.key_bytes = bytes;
        match id {
            Ok(id) => self.set_key(id),
            Err(e) => {
                self.key_bytes.clear();
                self.key_state = KeyState::Failed(e);
            }
        }
    }

    /// `next`: `fresh` is called for a new snapshot when the view is stale.
    pub fn next(&mut self, fresh: impl FnOnce() -> Result<Snapshot>) -> Result<()> {
        self.step(true, fresh)
    }

    /// `prev`: `fresh` is called for a new snapshot when the view is stale.
    pub fn prev(&mut self, fresh: impl FnOnce() -> Result<Snapshot>) -> Result<()> {
        self.step(false, fresh)
    }

    /// `search` for the key set: `WT_NOTFOUND` for an id that is not listed (outside the
    /// family, or a statistic the engine does not compute). `fresh` as for `next`.
    pub fn search(&mut self, fresh: impl FnOnce() -> Result<Snapshot>) -> Result<()> {
        self.require_key()?;
        self.value_at = None;
        if self.join.is_some() {
            return self.join_search();
        }
        self.refresh(fresh)?;
        match self.stats.binary_search_by_key(&self.key, |&(id, _)| id) {
            Ok(at) => {
                self.land(at);
                Ok(())
            }
            Err(_) => Err(Error::quiet(Kind::NotFound)),
        }
    }

    /// `reset`: forgets key, value and position; the next positioning call takes a fresh
    /// snapshot. (For `statistics:session` the owner also zeroes the session's counters.)
    pub fn reset(&mut self) {
        self.stale = true;
        self.unpositioned = true;
        self.key_state = KeyState::Unset;
        self.key_bytes.clear();
        self.value_at = None;
        self.value_bytes.clear();
    }

    /// The packed key (format `i`), for `get_key`.
    pub fn key_bytes(&self) -> Result<&[u8]> {
        self.require_key()?;
        Ok(&self.key_bytes)
    }

    /// The packed value (format `SSq`), for `get_value`.
    pub fn value_bytes(&self) -> Result<&[u8]> {
        self.require_value()?;
        Ok(&self.value_bytes)
    }

    /// The key, for Rust callers.
    pub fn key(&self) -> Result<i32> {
        self.require_key()?;
        Ok(self.key)
    }

    /// The statistic positioned on, for Rust callers.
    pub fn entry(&self) -> Result<Entry> {
        let at = self.require_value()?;
        if let Some(walk) = &self.join {
            // (The description without the set's prefix.)
            return Ok(Entry { id: self.key, description: JOIN_DESCRIPTIONS[at], value: walk.values[at] });
        }
        Ok(self.entry_at(at))
    }

    fn require_key(&self) -> Result<()> {
        match &self.key_state {
            KeyState::Set => Ok(()),
            KeyState::Unset => Err(Error::invalid("requires key be set")),
            KeyState::Failed(e) => Err(e.clone()),
        }
    }

    fn require_value(&self) -> Result<usize> {
        self.value_at.ok_or_else(|| Error::invalid("requires value be set"))
    }

    fn refresh(&mut self, fresh: impl FnOnce() -> Result<Snapshot>) -> Result<()> {
        if self.stale {
            self.stats = normalized(self.family, fresh()?);
            self.stale = false;
        }
        Ok(())
    }

    fn step(&mut self, forward: bool, fresh: impl FnOnce() -> Result<Snapshot>) -> Result<()> {
        if self.join.is_some() {
            return self.join_step(forward);
        }
        let found = self.refresh(fresh).and_then(|()| {
            let at = if std::mem::take(&mut self.unpositioned) {
                if forward { 0 } else { self.stats.len().wrapping_sub(1) }
            } else {
                // The neighbour of the current id, listed or not (it may be the application's
                // key after a failed search): the first id above / the last id below it.
                let above = self.stats.partition_point(|&(id, _)| id <= self.key);
                let below = self.stats.partition_point(|&(id, _)| id < self.key);
                if forward { above } else { below.wrapping_sub(1) }
            };
            if at < self.stats.len() { Ok(at) } else { Err(Error::quiet(Kind::NotFound)) }
        });
        let found = found.map(|at| self.land(at));
        self.moved(found)
    }

    /// The end of a `next` / `prev`: a failed one leaves no key set and no value.
    fn moved(&mut self, found: Result<()>) -> Result<()> {
        if found.is_err() {
            if self.key_state == KeyState::Set {
                self.key_state = KeyState::Unset;
            }
            self.value_at = None;
        }
        found
    }

    /// `statistics:join`'s `next` / `prev`: the next key of the set entered, else the first key
    /// of the next set.
    fn join_step(&mut self, forward: bool) -> Result<()> {
        let last = JOIN_BASE + JOIN_DESCRIPTIONS.len() as i32 - 1;
        let walk = self.join.as_mut().expect("a join view");
        if std::mem::take(&mut self.stale) {
            walk.restart();
        }
        let found = if std::mem::take(&mut self.unpositioned) {
            self.key = if forward { JOIN_BASE } else { last };
            let at = if forward { Some(0) } else { (walk.source)().len().checked_sub(1) };
            walk.enter(at)
        } else if forward && self.key < last {
            self.key += 1;
            Ok(())
        } else if !forward && self.key > JOIN_BASE {
            self.key -= 1;
            Ok(())
        } else {
            let at = if forward { walk.at.checked_add(1) } else { walk.at.checked_sub(1) };
            walk.enter(at).map(|()| self.key = if forward { JOIN_BASE } else { last })
        };
        let found = found.map(|()| self.join_land());
        self.moved(found)
    }

    /// `statistics:join`'s `search`: the key in the set entered.
    fn join_search(&mut self) -> Result<()> {
        let walk = self.join.as_mut().expect("a join view");
        if std::mem::take(&mut self.stale) {
            walk.restart();
        }
        if !(JOIN_BASE..JOIN_BASE + JOIN_DESCRIPTIONS.len() as i32).contains(&self.key) {
            return Err(Error::quiet(Kind::NotFound));
        }
        self.join_land();
        Ok(())
    }

    fn join_land(&mut self) {
        let walk = self.join.as_ref().expect("a join view");
        let offset = (self.key - JOIN_BASE) as usize;
        let description = format!(
            "join: {}: {}",
            walk.prefix.as_deref().unwrap_or("(null)"),
            JOIN_DESCRIPTIONS[offset]
        );
        let value = walk.values[offset];
        self.set_key(self.key);
        self.value_at = Some(offset);
        self.pack_value(&description, value);
    }

    fn land(&mut self, at: usize) {
        let entry = self.entry_at(at);
        self.set_key(entry.id);
        self.value_at = Some(at);
        self.pack_value(entry.description, entry.value);
    }

    /// Packs the value (description, printable value, value) for `get_value`.
    fn pack_value(&mut self, description: &str, value: i64) {
        self.value_bytes.clear();
        // The longest printable value is 35 bytes ("18446744073B (18446744073709551615)").
        let mut printable = [0u8; 48];
        let len = {
            let mut out = &mut printable[..];
            write!(out, "{}", Printable(value)).expect("fits");
            48 - out.len()
        };
        let args = [
            Arg::Bytes(description.as_bytes()),
            Arg::Bytes(&printable[..len]),
            Arg::Int(value),
        ];
        pack::pack(&VALUE_FORMAT, &args, &mut self.value_bytes).expect("SSq packs any description and value");
    }

    fn entry_at(&self, at: usize) -> Entry {
        let (id, value) = self.stats[at];
        let description = self.family.description(id).expect("normalized snapshots hold family ids");
        Entry { id, description, value }
    }
}

/// Keeps the family's ids, sorted and unique (owners build sorted snapshots: then this is one
/// pass that changes nothing).
fn normalized(family: Family, mut stats: Snapshot) -> Snapshot {
    debug_assert!(stats.iter().all(|&(id, _)| family.contains(id)), "snapshot holds ids outside {family:?}");
    stats.retain(|&(id, _)| family.contains(id));
    if !stats.is_sorted_by(|a, b| a.0 < b.0) {
        stats.sort_by_key(|&(id, _)| id);
        stats.dedup_by_key(|e| e.0);
    }
    stats
}

fn pack_key(id: i32, out: &mut Vec<u8>) {
    out.clear();
    pack::pack(&KEY_FORMAT, &[Arg::Int(id.into())], out).expect("i packs any id");
}

fn unpack_key(bytes: &[u8]) -> Result<i32> {
    let mut args: Vec<Arg<'_>> = Vec::with_capacity(1);
    pack::unpack(&KEY_FORMAT, bytes, &mut args)?;
    let id = args.first().and_then(|a| a.as_i64()).ok_or_else(|| Error::invalid("requires key be set"))?;
    Ok(id as i32)
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
