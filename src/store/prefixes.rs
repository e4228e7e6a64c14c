//! Point look-ups of a secondary index by its leading columns.
//!
//! A secondary index's stored key is its columns followed by the primary key, so `search` on
//! an index cursor asks for the first live entry whose key starts with the columns. The ordered
//! index answers that with a descent; this map answers it with a hash probe: each distinct
//! prefix (the index columns as packed) maps to the slots whose keys start with it, in key
//! order. Readers peek without a lock and take the first member their view sees a value of; a
//! prefix with no member they see (or a map without the prefix) is left to the descent, which
//! stays the only answer for misses, neighbours and scans.
//!
//! Why it is exact when it answers: a slot becomes a member when it is published, before its
//! first version is installed ([`super::index`]'s protocol), and leaves only once it is retired
//! (it then holds no version). So any slot holding a version some view can see is a member of
//! its prefix's group, and the group's first visible member is the first visible entry with
//! that prefix. Members that were retired meanwhile are skipped by readers (no visible value)
//! and dropped by the next writer of the group.
//!
//! Used only where it pays and holds: an index held whole in memory (no tree on disk below
//! it, whose rows the map does not know), ordered bytewise (a collator may call different
//! bytes equal). A prefix shared by more than [`MAX_MEMBERS`] keys becomes crowded
//! and is left to the descent from then on (a count of members that come and go could not be
//! kept exact without a lock readers would see).

use std::hash::Hash;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};
use std::sync::atomic::Ordering::{Acquire, Relaxed};

use scc::hash_index::Entry as MapEntry;
use scc::{Guard, HashIndex, Shared};

use super::index::Index;
use super::key::{Key, KeyHashBuilder, Probe, ShortKey};
use super::version::{ReadView, Slot, RETIRED};

/// Keys sharing a prefix kept as a group; past it the prefix is crowded.
pub const MAX_MEMBERS: usize = 8;

/// What one member costs in memory, about: the entry of its prefix in the map (the prefix's
/// key and the group) and the hash table's bytes per entry; the cache's estimate adds it to each
/// entry of an index that keeps a map.
pub const MEMBER_BYTES: usize = std::mem::size_of::<Key>() + std::mem::size_of::<Group>() + 16;

/// How long a stored key's prefix is (`None`: the key does not parse, and the map turns itself
/// off, since it could no longer list every slot).
pub type Split = Box<dyn Fn(&[u8]) -> Option<usize> + Send + Sync>;

/// One slot of a group, with its whole key (what the reader lands on) and, where the map is
/// linked to the table's rows ([`Prefixes::link_rows`]), the slot of the row its primary key
/// named when it joined (a shortcut past the rows' hash probe, never an answer on its own).
#[derive(Clone)]
struct Member {
    key: Key,
    slot: Shared<Slot>,
    row: Option<Shared<Slot>>,
}

impl Member {
    fn is(&self, slot: *const Slot) -> bool {
        std::ptr::eq(self.slot.as_ptr(), slot)
    }

    fn is_retired(&self, guard: &Guard) -> bool {
        self.slot.head.load(Acquire, guard).tag() == RETIRED
    }
}

/// The slots of one prefix.
#[derive(Clone)]
enum Group {
    /// The common case of a unique index: one slot, held inline.
    One(Member),
    /// A few, in key order.
    Several(Arc<[Member]>),
    /// Too many to keep: readers descend.
    Crowded,
}

impl Group {
    fn members(&self) -> &[Member] {
        match self {
            Group::One(m) => std::slice::from_ref(m),
            Group::Several(ms) => ms,
            Group::Crowded => &[],
        }
    }

    /// The group of `members` (sorted), or `None` when none is left.
    fn of(mut members: Vec<Member>) -> Option<Group> {
        Some(match members.len() {
            0 => return None,
            1 => Group::One(members.pop().expect("one member")),
            n if n > MAX_MEMBERS => Group::Crowded,
            _ => Group::Several(members.into()),
        })
    }
}

/// The prefix map of one index (see the module's documentation). Split by the prefix's length
/// as the index's hash index is: prefixes of at most 8 bytes are plain-data `ShortKey`s,
/// which hash and compare without touching key bytes elsewhere.
pub struct Prefixes {
    split: Split,
    short: HashIndex<ShortKey, Group, KeyHashBuilder>,
    long: HashIndex<Key, Group, KeyHashBuilder>,
    /// A key that did not split was published: the map no longer knows every slot, so it
    /// answers nothing. Only ever set, by a writer; readers load it (a line no hot path writes).
    off: AtomicBool,
    /// The index of the table's rows, whose slots members point at.
    rows: OnceLock<Arc<Index>>,
}

impl Prefixes {
    /// An empty map whose keys' prefixes `split` measures.
    pub fn new(split: Split) -> Self {
        Prefixes {
            split,
            short: HashIndex::with_hasher(KeyHashBuilder::default()),
            long: HashIndex::with_hasher(KeyHashBuilder::default()),
            off: AtomicBool::new(false),
            rows: OnceLock::new(),
        }
    }

    /// Lets members joining from now on point at the slots of their rows in `rows` (the
    /// table's store, keyed by the primary key that ends each entry); the first link stays.
    pub fn link_rows(&self, rows: &Arc<Index>) {
        self.rows.get_or_init(|| Arc::clone(rows));
    }

    /// The first key starting with `prefix` (a whole prefix, as `split` measures them) whose
    /// value `view` sees, with that value; `None` when the map cannot tell.
    #[inline]
    pub fn first_live<'g>(&'g self, prefix: &[u8], view: &ReadView, guard: &'g Guard) -> Option<(&'g [u8], &'g [u8])> {
        self.group(prefix, guard)?
            .members()
            .iter()
            .find_map(|m| m.slot.value_in(view, guard).map(|v| (m.key.as_bytes(), v)))
    }

    /// The first key of `prefix`'s group, whether any view sees it or not (`None` when the map
    /// cannot tell), for a caller that checks the entry by other means than its own versions;
    /// with it the slot its row had when it joined, if the map is linked to `rows`.
    #[inline]
    pub fn first_key<'g>(&'g self, prefix: &[u8], rows: &Index, guard: &'g Guard) -> Option<(&'g [u8], Option<&'g Slot>)> {
        let first = self.group(prefix, guard)?.members().first()?;
        let linked = self.rows.get().is_some_and(|r| std::ptr::eq(&**r, rows));
        Some((first.key.as_bytes(), first.row.as_deref().filter(|_| linked)))
    }

    /// The group of `prefix`, while the map is on. Out of line: the one call site of the
    /// short-prefix look-up, which keeps it from sharing (and so un-inlining) the look-up code
    /// the index's own [`Index::hashed_head`] inlines.
    #[inline(never)]
    fn group<'g>(&'g self, prefix: &[u8], guard: &'g Guard) -> Option<&'g Group> {
        if self.off.load(Relaxed) {
            return None;
        }
        match ShortKey::new(prefix) {
            Some(short) => self.short.peek(&short, guard),
            None => self.long.peek(&Probe::new(prefix), guard),
        }
    }

    /// Adds the slot of `key`, about to get its first version, to its prefix's group (a slot
    /// already there stays as it is: any writer may publish a pending slot).
    pub fn join(&self, key: Key, slot: &Shared<Slot>, guard: &Guard) {
        let Some(n) = self.prefix_len(key.as_bytes()) else { return };
        // Looked up only for a member that is added (not for a crowded group or a slot that is
        // there already).
        let row = |key: &Key| self.rows.get().and_then(|rows| rows.slot_of(&key.as_bytes()[n..], guard));
        match ShortKey::new(&key.as_bytes()[..n]) {
            Some(short) => join_group(self.short.entry_sync(short), key, slot, row),
            None => {
                let prefix = Key::new(&key.as_bytes()[..n]);
                join_group(self.long.entry_sync(prefix), key, slot, row)
            }
        }
    }

    /// Takes the retired slot at `target`, of `key`, out of its prefix's group (nothing if it
    /// is not there: unlinking is helped by several writers).
    pub fn leave(&self, key: &[u8], target: *const Slot) {
        let Some(n) = self.prefix_len(key) else { return };
        match ShortKey::new(&key[..n]) {
            Some(short) => leave_group(self.short.entry_sync(short), target),
            None => leave_group(self.long.entry_sync(Key::new(&key[..n])), target),
        }
    }

    fn prefix_len(&self, key: &[u8]) -> Option<usize> {
        match (self.split)(key) {
            Some(n) if n <= key.len() => Some(n),
            _ => {
                self.off.store(true, Relaxed);
                None
            }
        }
    }
}

/// [`Prefixes::join`] of `slot`, of `key`, on the entry of its prefix (its bucket locked); `row`
/// finds the slot of the key's row.
fn join_group<K: Clone + Eq + Hash>(
    entry: MapEntry<'_, K, Group, KeyHashBuilder>,
    key: Key,
    slot: &Shared<Slot>,
    row: impl FnOnce(&Key) -> Option<Shared<Slot>>,
) {
    let member = |key: Key| Member { row: row(&key), key, slot: slot.clone() };
    match entry {
        MapEntry::Vacant(v) => {
            v.insert_entry(Group::One(member(key)));
        }
        MapEntry::Occupied(mut o) => {
            let group = o.get();
            if matches!(group, Group::Crowded) || group.members().iter().any(|m| m.is(slot.as_ptr())) {
                return;
            }
            let guard = Guard::new();
            let mut members: Vec<Member> = group.members().iter().filter(|m| !m.is_retired(&guard)).cloned().collect();
            let at = members.partition_point(|m| m.key.as_bytes() <= key.as_bytes());
            members.insert(at, member(key));
            o.update(Group::of(members).expect("a member was added"));
        }
    }
}

/// [`Prefixes::leave`] on the entry of the slot's prefix (its bucket locked).
fn leave_group<K: Clone + Eq + Hash>(entry: MapEntry<'_, K, Group, KeyHashBuilder>, target: *const Slot) {
    let MapEntry::Occupied(mut o) = entry else { return };
    let group = o.get();
    if !group.members().iter().any(|m| m.is(target)) {
        return;
    }
    let members = group.members().iter().filter(|m| !m.is(target)).cloned().collect();
    match Group::of(members) {
        Some(group) => o.update(group),
        None => o.remove_entry(),
    }
}
