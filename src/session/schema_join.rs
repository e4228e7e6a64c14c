//! Join cursors (`join:table:T[(cols)]`) and `WT_SESSION::join`: each join adds a condition on
//! one of the table's indices (the index cursor's key compared with `compare=eq|ge|gt|le|lt`),
//! or another join cursor's conditions as one; `operation=and|or` says how a join cursor's
//! conditions combine. The first `next` finds the rows: the first condition's entries in its
//! index's order, kept when the others hold (`and`), or each condition's entries in turn, each
//! row once (`or`). `strategy=bloom` and the bloom sizes are accepted; the membership checks
//! use exact sets, so there are no false positives.

use std::cmp::Ordering;
use std::collections::HashSet;

use crate::conn::Connection;
use crate::error::{Error, Kind, Result};
use crate::schema::columns::{pack_values, unpack_values, Value};
use crate::store::collate;

use super::schema_cursor::SchemaCursor;
use super::Session;

/// How an index key is compared with the join's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compare {
    Eq,
    Ge,
    Gt,
    Le,
    Lt,
}

impl Compare {
    fn holds(self, order: Ordering) -> bool {
        match self {
            Compare::Eq => order == Ordering::Equal,
            Compare::Ge => order != Ordering::Less,
            Compare::Gt => order == Ordering::Greater,
            Compare::Le => order != Ordering::Greater,
            Compare::Lt => order == Ordering::Less,
        }
    }
}

/// One condition of a join cursor.
#[derive(Clone, Debug)]
enum Clause {
    /// Index `index` of the table: its columns, packed as a key prefix, compared with `key`.
    Index { index: usize, compare: Compare, key: Vec<u8> },
    /// Another join cursor's conditions.
    Join(JoinState),
}

/// A join cursor's conditions and, once iterating, its rows.
#[derive(Clone, Debug, Default)]
pub struct JoinState {
    clauses: Vec<Clause>,
    /// `operation=or` (else `and`).
    or: bool,
    /// The primary keys found by the first `next`, and how many were returned.
    rows: Option<Vec<Vec<u8>>>,
    at: usize,
}

impl JoinState {
    /// Forgets the rows found (`reset`): the next `next` evaluates the conditions again.
    pub fn restart(&mut self) {
        self.rows = None;
        self.at = 0;
    }
}

/// `WT_SESSION::join`'s configuration.
struct JoinConfig {
    compare: Compare,
    or: bool,
}

fn parse_config(config: Option<&str>) -> Result<JoinConfig> {
    let mut out = JoinConfig { compare: Compare::Eq, or: false };
    let mut parser = crate::config::Parser::new(config.unwrap_or(""));
    while let Some(pair) = parser.next_pair() {
        let (key, value) = pair.map_err(Error::from)?;
        let bad = || Error::invalid(format!("Value '{}' not a permitted choice for key '{}'", value.text, key.text));
        match key.text {
            "compare" => {
                out.compare = match value.text {
                    "eq" => Compare::Eq,
                    "ge" => Compare::Ge,
                    "gt" => Compare::Gt,
                    "le" => Compare::Le,
                    "lt" => Compare::Lt,
                    _ => return Err(bad()),
                }
            }
            "operation" => {
                out.or = match value.text {
                    "and" => false,
                    "or" => true,
                    _ => return Err(bad()),
                }
            }
            "strategy" => {
                if !matches!(value.text, "bloom" | "default" | "") {
                    return Err(bad());
                }
            }
            "count" | "bloom_bit_count" | "bloom_hash_count" | "bloom_false_positives" => {}
            other => return Err(Error::invalid(format!("unknown configuration key '{other}'"))),
        }
    }
    Ok(out)
}

impl Session {
    /// `WT_SESSION::join`: adds `reference`'s condition (an index cursor with a key, or a join
    /// cursor) to `join`.
    pub fn join(&mut self, join: &mut SchemaCursor, reference: &SchemaCursor, config: Option<&str>) -> Result<()> {
        let cfg = parse_config(config)?;
        if !join.is_join() {
            return Err(Error::invalid("WT_SESSION::join: first cursor is not a join cursor"));
        }
        if join.layout().table.name() != reference.layout().table.name() {
            return Err(Error::invalid("WT_SESSION::join: the cursors are on different tables"));
        }
        let state = join.join_state_mut();
        if state.rows.is_some() {
            return Err(Error::invalid("WT_SESSION::join: cannot add to a join cursor that is iterating"));
        }
        if !state.clauses.is_empty() && state.or != cfg.or {
            return Err(Error::invalid("WT_SESSION::join: all joins of a cursor must use the same operation"));
        }
        let clause = if let Some(sub) = reference.join_state() {
            if sub.clauses.is_empty() {
                return Err(Error::invalid("WT_SESSION::join: the joined cursor has no conditions"));
            }
            Clause::Join(JoinState { rows: None, at: 0, ..sub.clone() })
        } else if let Some(index) = reference.index_target() {
            let key = reference
                .key_bytes()
                .map_err(|_| Error::invalid("WT_SESSION::join: the index cursor must be positioned or have a key"))?;
            let key = index_prefix(reference, index, key)?;
            Clause::Index { index, compare: cfg.compare, key }
        } else {
            return Err(Error::invalid("WT_SESSION::join: the second cursor must be an index or join cursor"));
        };
        let state = join.join_state_mut();
        state.or = cfg.or;
        state.clauses.push(clause);
        Ok(())
    }

    /// `next` of a join cursor: the next row that meets its conditions.
    pub(super) fn join_next(&mut self, conn: &Connection, sc: &mut SchemaCursor) -> Result<()> {
        if sc.join_state().is_some_and(|s| s.rows.is_none()) {
            let state = sc.join_state().cloned().unwrap_or_default();
            if state.clauses.is_empty() {
                return Err(Error::invalid("join cursor has no conditions"));
            }
            let rows = self.join_rows(conn, sc, &state)?;
            sc.join_state_mut().rows = Some(rows);
        }
        loop {
            let state = sc.join_state_mut();
            let rows = state.rows.as_ref().expect("found above");
            let Some(pk) = rows.get(state.at).cloned() else {
                return Err(Error::quiet(Kind::NotFound));
            };
            state.at += 1;
            // A row removed since the conditions were evaluated is passed over.
            if self.land_row(sc, &pk)? {
                return Ok(());
            }
        }
    }

    /// The primary keys meeting `state`'s conditions, in order.
    fn join_rows(&mut self, conn: &Connection, sc: &SchemaCursor, state: &JoinState) -> Result<Vec<Vec<u8>>> {
        let mut lists = Vec::with_capacity(state.clauses.len());
        for clause in &state.clauses {
            lists.push(match clause {
                Clause::Index { index, compare, key } => self.index_matches(conn, sc, *index, *compare, key)?,
                Clause::Join(sub) => self.join_rows(conn, sc, sub)?,
            });
        }
        let mut seen = HashSet::new();
        if state.or {
            Ok(lists.into_iter().flatten().filter(|pk| seen.insert(pk.clone())).collect())
        } else {
            let mut lists = lists.into_iter();
            let first = lists.next().unwrap_or_default();
            let others: Vec<HashSet<Vec<u8>>> = lists.map(|l| l.into_iter().collect()).collect();
            Ok(first.into_iter().filter(|pk| others.iter().all(|o| o.contains(pk)) && seen.insert(pk.clone())).collect())
        }
    }

    /// The primary keys of index `at`'s entries whose columns compare with `key` as asked, in
    /// the index's order.
    fn index_matches(&mut self, conn: &Connection, sc: &SchemaCursor, at: usize, compare: Compare, key: &[u8]) -> Result<Vec<Vec<u8>>> {
        let layout = sc.layout();
        let index = &layout.indices[at];
        let n = index.key_fields;
        // An extractor may give a row several entries: each row is found once.
        let mut seen = index.extract.as_ref().map(|_| std::collections::HashSet::new());
        let id = self.open_scan(conn, &index.table)?;
        let out = (|| {
            let mut found = Vec::new();
            let mut prefix = Vec::new();
            loop {
                match self.next(id) {
                    Ok(()) => {}
                    Err(e) if e.kind() == Kind::NotFound => break,
                    Err(e) => return Err(e),
                }
                let mut values = unpack_values(index.table.key_format(), self.cursors.get(id).key_bytes()?)?;
                let pk_values = values.split_off(n);
                values.push(Value::Bytes(Vec::new()));
                prefix.clear();
                pack_values(&index.prefix_format, values.iter(), &mut prefix)?;
                // In the index's order: its collator's, if it has one.
                if compare.holds(collate::cmp(index.table.collator().map(|c| &**c), &prefix, key)) {
                    let mut pk = Vec::new();
                    pack_values(layout.table.key_format(), pk_values.iter(), &mut pk)?;
                    if seen.as_mut().is_none_or(|seen| seen.insert(pk.clone())) {
                        found.push(pk);
                    }
                }
            }
            Ok(found)
        })();
        self.close_scan(id);
        out
    }
}

/// An index cursor's key as the prefix of its stored keys (see `Session::index_seek`).
fn index_prefix(sc: &SchemaCursor, at: usize, key: &[u8]) -> Result<Vec<u8>> {
    if sc.is_raw() {
        // A raw index cursor's key is (a prefix of) the stored key already.
        return Ok(key.to_vec());
    }
    let index = &sc.layout().indices[at];
    let mut values = unpack_values(&index.key_format, key)?;
    values.push(Value::Bytes(Vec::new()));
    let mut prefix = Vec::new();
    pack_values(&index.prefix_format, values.iter(), &mut prefix)?;
    Ok(prefix)
}
