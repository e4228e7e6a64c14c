//! The configuration parser and validator: any bytes, as the configuration of any method.

use crate::config::{self, config_from_bytes, list_elements, Kind, Method, Parser};

/// First byte: the method (of [`Method::ALL`]); the rest: its configuration string.
pub fn config(data: &[u8]) {
    let Some((sel, rest)) = super::split_first(data) else { return };
    let method = Method::ALL[sel as usize % Method::ALL.len()];
    // Bytes that are not UTF-8 get the reference's syntax error (what the C layer does).
    let Ok(src) = config_from_bytes(rest) else { return };
    // The raw parser on its own: every pair, and the list reading of every value.
    for (_, v) in Parser::new(src).map_while(Result::ok) {
        let _ = list_elements(v.text);
    }
    let cfg = match config::validate(method, Some(src), Some(&crate::schema::check_format)) {
        Ok(cfg) => cfg,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    // A valid configuration: read every key it sets the way the engine does, by type.
    for key in cfg.set_keys() {
        let Some(def) = cfg.def(key) else { continue };
        match def.kind {
            Kind::Boolean => drop(cfg.bool(key)),
            Kind::Int => drop(cfg.int(key)),
            Kind::String | Kind::Format => drop(cfg.str(key)),
            Kind::List => drop(cfg.list(key)),
            Kind::Category => drop(cfg.is_set(key)),
        }
    }
}
