//! Keys an application adds to a method's configuration (`WT_CONNECTION::configure_method`),
//! consulted by [`validate`](super::validate) only for a key its table lacks, so the common
//! path costs nothing. Each added key is a [`KeyDef`] like the generated ones (leaked: the
//! reference keeps them until its connection closes, and the calls are rare), checked the same
//! way (type, `min`/`max`, `choices`).
//!
//! Unlike the reference, where they belong to the connection, added keys are known to every
//! connection of the process: the method tables are process-wide.

use parking_lot::RwLock;

use super::error::ConfigError;
use super::parser::{list_elements, ItemKind, Parser};
use super::schema::Method;
use super::value::{KeyDef, Kind};

/// The added keys, newest last (a key added again replaces the earlier one).
static ADDED: RwLock<Vec<(Method, &'static KeyDef)>> = parking_lot::const_rwlock(Vec::new());

/// The key `name` added to `method`, if any.
pub(super) fn find(method: Method, name: &str) -> Option<&'static KeyDef> {
    ADDED.read().iter().rev().find(|(m, d)| *m == method && d.name == name).map(|(_, d)| *d)
}


/// `WT_CONNECTION::configure_method`: adds the key of `config` (`name` or `name=default`) of
/// type `kind_name` ("boolean", "int", "list" or "string") with `check` (`min=`, `max=`,
/// `choices=`) to `method`, then checks `config` against it, as the reference does. `None`
/// is a method without a key table, which accepts any key already: only the arguments are
/// checked. The reference's messages.
pub fn add(method: Option<Method>, config: Option<&str>, kind_name: Option<&str>, check: Option<&str>) -> Result<(), ConfigError> {
    let invalid = |m: &str| ConfigError::new(m.to_string());
    let config = config.ok_or_else(|| invalid("no configuration specified"))?;
    let kind_name = kind_name.ok_or_else(|| invalid("no configuration type specified"))?;
    let kind = match kind_name {
        "boolean" => Kind::Boolean,
        "int" => Kind::Int,
        "list" => Kind::List,
        "string" => Kind::String,
        _ => return Err(invalid("type must be one of \"boolean\", \"int\", \"list\" or \"string\"")),
    };
    let Some(found) = method else { return Ok(()) };
    let (name, default) = match config.split_once('=') {
        Some((name, default)) => (name, default),
        None => (config, ""),
    };
    let (mut min, mut max, mut choices) = (None, None, Vec::new());
    for pair in Parser::new(check.unwrap_or("")) {
        let (key, value) = pair?;
        match key {
            "min" if value.kind == ItemKind::Num => min = Some(value.num),
            "max" if value.kind == ItemKind::Num => max = Some(value.num),
            "choices" => choices = list_elements(value.text),
            _ => return Err(invalid(&format!("unknown configuration key '{key}'"))),
        }
    }
    let default_num = match kind {
        Kind::Int => default.parse().unwrap_or(0),
        Kind::Boolean => i64::from(default == "true" || default == "1"),
        _ => 0,
    };
    let name: &'static str = leak(name);
    let def: &'static KeyDef = Box::leak(Box::new(KeyDef {
        name,
        path: name,
        kind,
        default: leak(default),
        default_num,
        choices: Box::leak(choices.into_iter().map(leak).collect::<Vec<_>>().into_boxed_slice()),
        min,
        max,
        undocumented: false,
        sub: &[],
    }));
    // The configuration must pass the new key's check before it is added.
    if let Err(e) = super::validate::check_added(def, config) {
        // SAFETY: `def` and what it points to were leaked above and are referred to nowhere.
        unsafe { reclaim(def) };
        return Err(e);
    }
    ADDED.write().push((found, def));
    Ok(())
}

/// Frees a key definition `add` leaked and did not keep.
///
/// # Safety
/// `def` and its strings come from `add`'s leaks, and nothing refers to them any more.
unsafe fn reclaim(def: &'static KeyDef) {
    // SAFETY: per the contract, each pointer is a leaked Box of that type, freed once (`path`
    // is `name`).
    unsafe {
        let def = Box::from_raw(std::ptr::from_ref(def).cast_mut());
        for choice in def.choices {
            drop(Box::from_raw(std::ptr::from_ref::<str>(choice).cast_mut()));
        }
        drop(Box::from_raw(std::ptr::from_ref::<[&'static str]>(def.choices).cast_mut()));
        drop(Box::from_raw(std::ptr::from_ref::<str>(def.name).cast_mut()));
        drop(Box::from_raw(std::ptr::from_ref::<str>(def.default).cast_mut()));
    }
}

fn leak(text: &str) -> &'static str {
    Box::leak(text.to_string().into_boxed_str())
}
