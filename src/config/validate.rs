//! Per-method validation (config.md §1 value typing, §2 messages) and look-ups with defaults.

use super::error::ConfigError;
use super::parser::{list_elements, Item, ItemKind, Parser, Scanner, Span};
use super::schema::Method;
use super::value::{KeyDef, Kind};

/// The optional checker for `format` keys (`key_format`, `value_format`): given the value text,
/// returns the packing module's error message for a bad format.
pub type FormatCheck<'f> = &'f dyn Fn(&str) -> Result<(), String>;

/// Methods whose configuration the reference checks with its pre-compiled checker (different
/// message texts, config.md §2 "Exceptions").
fn uses_compiled_checker(method: Method) -> bool {
    matches!(method, Method::BeginTransaction)
}

/// Checks every key of `config` against `method`'s key table: syntax, unknown keys, types,
/// choices and limits, with the reference's messages. `None` and `""` mean "no configuration"
/// and return at once, without allocating. Every occurrence of a repeated key is checked.
///
/// `format_check` validates the values of `format` keys; without it they are accepted.
#[inline]
pub fn validate<'a>(
    method: Method,
    config: Option<&'a str>,
    format_check: Option<FormatCheck<'_>>,
) -> Result<Config<'a>, ConfigError> {
    match config {
        None | Some("") => Ok(Config::empty(method)),
        Some(src) => validate_string(method, src, format_check),
    }
}

fn validate_string<'a>(
    method: Method,
    src: &'a str,
    format_check: Option<FormatCheck<'_>>,
) -> Result<Config<'a>, ConfigError> {
    if uses_compiled_checker(method) {
        compiled_level(method, method.keys(), src, 0, src.len(), 0)?;
    } else {
        check_level(Some(method), method.keys(), src, 0, src.len(), format_check)?;
    }
    Ok(Config { method, src })
}

/// Checks `config` against one key the application added (`extra::add`).
pub(super) fn check_added(def: &'static KeyDef, config: &str) -> Result<(), ConfigError> {
    check_level(None, std::slice::from_ref(def), config, 0, config.len(), None)
}

/// True when `config` needs no parsing at all for a cursor open: `None`, `""`,
/// `"overwrite=false"` or `"overwrite=true"` (the cursor cache's fast path).
#[inline]
pub fn is_trivial(config: Option<&str>) -> bool {
    matches!(
        config,
        None | Some("") | Some("overwrite=false") | Some("overwrite=true")
    )
}

fn text_of(src: &str, s: Span) -> &str {
    src.get(s.start..s.end()).unwrap_or("")
}

fn syntax(scan: &Scanner<'_>, e: super::parser::SyntaxError) -> ConfigError {
    e.to_error(scan.text())
}

/// The regular checker over `src[begin..end]`.
fn check_level(
    method: Option<Method>,
    defs: &'static [KeyDef],
    src: &str,
    begin: usize,
    end: usize,
    format_check: Option<FormatCheck<'_>>,
) -> Result<(), ConfigError> {
    let mut scan = Scanner::new(src.as_bytes(), begin, end);
    loop {
        let (k, v) = match scan.next_pair() {
            Ok(Some(kv)) => kv,
            Ok(None) => return Ok(()),
            Err(e) => return Err(syntax(&scan, e)),
        };
        let key = text_of(src, k);
        if k.kind != ItemKind::String && k.kind != ItemKind::Id {
            return Err(ConfigError::new(format!(
                "Invalid configuration key found: '{key}'"
            )));
        }
        // A key the table lacks may be one the application added (`extra`; top level only).
        let def = KeyDef::find(defs, key)
            .or_else(|| method.and_then(|m| super::extra::find(m, key)))
            .ok_or_else(|| ConfigError::new(format!("unknown configuration key '{key}'")))?;
        let val = text_of(src, v);

        let badtype = match def.kind {
            Kind::Boolean => {
                v.kind != ItemKind::Bool && (v.kind != ItemKind::Num || (v.num != 0 && v.num != 1))
            }
            Kind::Int => v.kind != ItemKind::Num,
            Kind::List => v.len > 0 && v.kind != ItemKind::Struct,
            Kind::String | Kind::Format => false,
            Kind::Category => {
                // The reference checks the text that starts one byte after the key name and is
                // as long as the value (to the end of the whole string for an empty value).
                // For the usual `key=(...)` that is exactly the value.
                let start = k.start + def.name.len() + 1;
                if start > src.len() {
                    // A bare category key ending the string ("log", "x,debug"): the window
                    // starts past the string's end, which the reference reads out of bounds
                    // and answers with EINVAL; that is made the rule here.
                    return Err(ConfigError::new(format!(
                        "Invalid value for key '{key}': expected a category"
                    )));
                }
                let (wb, we) = if start >= src.len() {
                    (src.len(), src.len())
                } else if v.len == 0 {
                    (start, src.len())
                } else {
                    (start, (start + v.len).min(src.len()))
                };
                if let Err(mut e) = check_level(None, def.sub, src, wb, we, format_check) {
                    e.push(format!(
                        "Invalid value for key '{key}': expected a category"
                    ));
                    return Err(e);
                }
                false
            }
        };
        if badtype {
            return Err(ConfigError::new(format!(
                "Invalid value for key '{key}': expected a {}",
                def.kind.name()
            )));
        }
        if def.kind == Kind::Format {
            if let Some(check) = format_check {
                check(val).map_err(ConfigError::new)?;
            }
        }
        if let Some(min) = def.min {
            if v.num < min {
                return Err(ConfigError::new(format!(
                    "Value too small for key '{key}' the minimum is {min}"
                )));
            }
        }
        if let Some(max) = def.max {
            if v.num > max {
                return Err(ConfigError::new(format!(
                    "Value too large for key '{key}' the maximum is {max}"
                )));
            }
        }
        if !def.choices.is_empty() {
            if v.len == 0 {
                return Err(ConfigError::new(format!("Key '{key}' requires a value")));
            }
            let bad = if v.kind == ItemKind::Struct {
                let mut elems = Parser::new(val);
                let mut bad = None;
                while let Some(r) = elems.next_pair() {
                    let (e, _) = r?;
                    if !def.choices.contains(&e.text) {
                        bad = Some(e.text);
                        break;
                    }
                }
                bad
            } else if def.choices.contains(&val) {
                None
            } else {
                Some(val)
            };
            if let Some(bad) = bad {
                return Err(ConfigError::new(format!(
                    "Value '{bad}' not a permitted choice for key '{key}'"
                )));
            }
        }
    }
}

/// The pre-compiled checker (`WT_SESSION::begin_transaction`). `fmt_start` is where the
/// "Error compiling '…'" text starts: the reference prints from the current level's first byte
/// to the end of the whole string.
fn compiled_level(
    method: Method,
    defs: &'static [KeyDef],
    src: &str,
    begin: usize,
    end: usize,
    fmt_start: usize,
) -> Result<(), ConfigError> {
    let mut scan = Scanner::new(src.as_bytes(), begin, end);
    loop {
        let (k, v) = match scan.next_pair() {
            Ok(Some(kv)) => kv,
            Ok(None) => return Ok(()),
            Err(e) => return Err(syntax(&scan, e)),
        };
        let key = text_of(src, k);
        let val = text_of(src, v);
        // A key the table lacks may be one the application added (`extra`; top level only).
        let added = || if std::ptr::eq(defs, method.keys()) { super::extra::find(method, key) } else { None };
        let def = defs.iter().find(|d| d.name == key).or_else(added).ok_or_else(|| {
            ConfigError::new(format!(
                "Error compiling '{}', unknown key '{key}' for method '{}'",
                src.get(fmt_start..).unwrap_or(""),
                method.api_name()
            ))
        })?;
        match def.kind {
            Kind::Category | Kind::List => {
                if v.kind != ItemKind::Struct {
                    return Err(ConfigError::new(format!(
                        "Value '{val}' expected to be a category"
                    )));
                }
                let b = val.as_bytes();
                let (first, last) = (
                    b.first().copied().unwrap_or(0),
                    b.last().copied().unwrap_or(0),
                );
                if first == b'[' {
                    if last != b']' {
                        return Err(ConfigError::new(format!("Value '{val}' non-matching []")));
                    }
                } else if first == b'(' {
                    if last != b')' {
                        return Err(ConfigError::new(format!("Value '{val}' non-matching ()")));
                    }
                } else {
                    return Err(ConfigError::new(format!("Value '{val}' expected () or []")));
                }
                let inner = v.start + 1;
                let inner_end = v.end().saturating_sub(1).max(inner);
                compiled_level(method, def.sub, src, inner, inner_end, inner)?;
                continue;
            }
            Kind::Int => {
                if v.kind != ItemKind::Num {
                    return Err(ConfigError::new(format!(
                        "Value '{val}' expected to be an integer"
                    )));
                }
            }
            Kind::Boolean => {
                if v.kind != ItemKind::Bool
                    && (v.kind != ItemKind::Num || (v.num != 0 && v.num != 1))
                {
                    return Err(ConfigError::new(format!(
                        "Value '{val}' expected to be a boolean"
                    )));
                }
            }
            Kind::String | Kind::Format => {}
        }
        if !def.choices.is_empty() && !val.is_empty() && !def.choices.contains(&val) {
            return Err(ConfigError::new(format!(
                "Value '{val}' is not a valid choice"
            )));
        }
        if let Some(min) = def.min {
            if v.num < min {
                return Err(ConfigError::new(format!(
                    "Value '{val}' too small, the minimum is {min}"
                )));
            }
        }
        if let Some(max) = def.max {
            if v.num > max {
                return Err(ConfigError::new(format!(
                    "Value '{val}' too large, the maximum is {max}"
                )));
            }
        }
    }
}

/// A validated configuration string with typed look-ups that fall back to the method's
/// defaults. Cheap to copy; look-ups re-scan the string (no allocation except `list`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config<'a> {
    method: Method,
    src: &'a str,
}

impl<'a> Config<'a> {
    /// No configuration: every look-up gives the default.
    pub fn empty(method: Method) -> Config<'a> {
        Config { method, src: "" }
    }

    /// The method this configuration was validated for.
    pub fn method(&self) -> Method {
        self.method
    }

    /// The application's string ("" when none).
    pub fn as_str(&self) -> &'a str {
        self.src
    }

    /// The key's table entry. Panics in debug builds for a key the method does not have
    /// (a caller bug); release builds treat it as absent with an empty default.
    pub fn def(&self, key: &str) -> Option<&'static KeyDef> {
        let d = KeyDef::lookup(self.method.keys(), key);
        debug_assert!(
            d.is_some(),
            "configuration key '{key}' is not in the key table of {}",
            self.method.api_name()
        );
        d
    }

    /// The value the application gave for a dotted key (last occurrence wins; repeated
    /// categories merge by sub-key), or `None` when absent.
    pub fn get(&self, key: &str) -> Option<Item<'a>> {
        if self.src.is_empty() {
            return None;
        }
        Parser::find(self.src, key)
    }

    /// A boolean key: the value given, else the default.
    pub fn bool(&self, key: &str) -> bool {
        match self.get(key) {
            Some(v) => v.num != 0,
            None => self.def(key).is_some_and(|d| d.default_num != 0),
        }
    }

    /// An int key (suffixes expanded): the value given, else the default.
    pub fn int(&self, key: &str) -> i64 {
        match self.get(key) {
            Some(v) => v.num,
            None => self.def(key).map_or(0, |d| d.default_num),
        }
    }

    /// A string key, unquoted (escapes kept as written): the value given, else the default.
    /// A value given as a group keeps its brackets; a key given without a value gives "".
    pub fn str(&self, key: &str) -> &'a str {
        match self.get(key) {
            Some(v) => v.text,
            None => self.def(key).map_or("", |d| d.default),
        }
    }

    /// A list key's elements (unquoted), from the value given or the default.
    pub fn list(&self, key: &str) -> Vec<&'a str> {
        match self.get(key) {
            Some(v) => list_elements(v.text),
            None => self
                .def(key)
                .map_or_else(Vec::new, |d| list_elements(d.default)),
        }
    }

    /// Whether the application gave the key. A category counts as given when it appears at
    /// all (`is_set("log")` is true for `log=()`); a sub-key only when it appears inside.
    pub fn is_set(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The dotted keys the application gave, in order of appearance and once per occurrence;
    /// a category yields its own name, then its sub-keys (`log`, `log.enabled`).
    pub fn set_keys(&self) -> SetKeys<'a> {
        SetKeys {
            stack: if self.src.is_empty() {
                Vec::new()
            } else {
                vec![(Parser::new(self.src), self.method.keys())]
            },
        }
    }
}

/// Iterator over the dotted keys a configuration string sets (see [`Config::set_keys`]).
#[derive(Clone, Debug)]
pub struct SetKeys<'a> {
    stack: Vec<(Parser<'a>, &'static [KeyDef])>,
}

impl Iterator for SetKeys<'_> {
    type Item = &'static str;

    fn next(&mut self) -> Option<&'static str> {
        loop {
            let (parser, defs) = self.stack.last_mut()?;
            let defs: &'static [KeyDef] = defs;
            match parser.next_pair() {
                Some(Ok((k, v))) => {
                    let Some(def) = KeyDef::find(defs, k.text) else {
                        continue;
                    };
                    if def.kind == Kind::Category && v.kind == ItemKind::Struct {
                        self.stack.push((Parser::new(v.text), def.sub));
                    }
                    return Some(def.path);
                }
                _ => {
                    self.stack.pop();
                }
            }
        }
    }
}
