//! Unit tests: one per rule / message of config.md §1–§2, plus schema and robustness checks.

use super::*;

const OPEN: Method = Method::WiredtigerOpen;

fn ok(method: Method, cfg: &str) -> Config<'_> {
    match validate(method, Some(cfg), None) {
        Ok(c) => c,
        Err(e) => panic!("{cfg:?} for {}: unexpected error {e}", method.api_name()),
    }
}

fn errs(method: Method, cfg: &str) -> Vec<String> {
    match validate(method, Some(cfg), None) {
        Ok(_) => panic!("{cfg:?} for {} was accepted", method.api_name()),
        Err(e) => {
            assert_eq!(e.errno(), 22);
            e.messages().to_vec()
        }
    }
}

fn err1(method: Method, cfg: &str) -> String {
    let m = errs(method, cfg);
    assert_eq!(m.len(), 1, "{cfg:?}: expected one message, got {m:?}");
    m.into_iter().next().unwrap()
}

fn parse_err(cfg: &str, offset: usize, reason: &str) -> String {
    format!("Error parsing '{cfg}' at offset {offset}: {reason}")
}

// ---------------------------------------------------------------------------------------------
// §1 grammar

#[test]
fn null_and_empty_mean_no_configuration() {
    let c = validate(OPEN, None, None).unwrap();
    assert_eq!(c.as_str(), "");
    assert!(!c.is_set("create"));
    let c = validate(OPEN, Some(""), None).unwrap();
    assert_eq!(c.set_keys().count(), 0);
    assert_eq!(c.int("cache_size"), 100 << 20);
}

#[test]
fn empty_items_are_skipped() {
    let c = ok(OPEN, "create,,,  ,");
    assert!(c.bool("create"));
    assert_eq!(c.set_keys().collect::<Vec<_>>(), ["create"]);
    ok(OPEN, ",");
    ok(OPEN, " , ,, ");
}

#[test]
fn key_without_value_is_true() {
    let c = ok(OPEN, "create");
    assert!(c.bool("create"));
    let item = c.get("create").unwrap();
    assert_eq!((item.kind, item.text, item.num), (ItemKind::Bool, "", 1));
}

#[test]
fn empty_value_is_true_for_booleans() {
    let c = ok(OPEN, "create=,in_memory=");
    assert!(c.bool("create"));
    assert!(c.bool("in_memory"));
}

#[test]
fn empty_value_fails_for_int() {
    let want = "Invalid value for key 'cache_size': expected a int";
    assert_eq!(err1(OPEN, "cache_size="), want);
    assert_eq!(err1(OPEN, "cache_size"), want);
}

#[test]
fn empty_value_is_empty_string() {
    let c = ok(OPEN, "error_prefix=");
    assert!(c.is_set("error_prefix"));
    assert_eq!(c.str("error_prefix"), "");
}

#[test]
fn empty_value_with_choices_requires_a_value() {
    assert_eq!(
        err1(Method::OpenSession, "isolation="),
        "Key 'isolation' requires a value"
    );
    assert_eq!(
        err1(Method::OpenSession, "isolation"),
        "Key 'isolation' requires a value"
    );
    assert_eq!(
        err1(OPEN, "statistics="),
        "Key 'statistics' requires a value"
    );
}

#[test]
fn colon_separator_and_json_objects() {
    assert!(ok(OPEN, "create:true").bool("create"));
    let c = ok(OPEN, r#"{"create":true}"#);
    assert!(c.bool("create"));
    let c = ok(OPEN, "{create:true,cache_size:1GB}");
    assert!(c.bool("create"));
    assert_eq!(c.int("cache_size"), 1 << 30);
    let c = ok(OPEN, r#"{"create": true, "session_max": 7}"#);
    assert_eq!(c.int("session_max"), 7);
}

#[test]
fn outer_brackets_are_optional() {
    for cfg in [
        "(create=true)",
        "[create]",
        "{create}",
        " ( create , in_memory ) ",
    ] {
        assert!(ok(OPEN, cfg).bool("create"), "{cfg}");
    }
}

#[test]
fn whitespace_around_tokens() {
    let c = ok(OPEN, " create = true ,\tcache_size : 1GB\r\n, in_memory ");
    assert!(c.bool("create") && c.bool("in_memory"));
    assert_eq!(c.int("cache_size"), 1 << 30);
}

#[test]
fn keys_and_values_are_case_sensitive() {
    assert_eq!(
        err1(OPEN, "create=True"),
        "Invalid value for key 'create': expected a boolean"
    );
    assert_eq!(
        err1(OPEN, "Create=true"),
        "unknown configuration key 'Create'"
    );
}

#[test]
fn boolean_values() {
    for (cfg, want) in [
        ("create=true", true),
        ("create=false", false),
        ("create=1", true),
        ("create=0", false),
    ] {
        assert_eq!(ok(OPEN, cfg).bool("create"), want, "{cfg}");
    }
    for cfg in [
        "create=2",
        "create=yes",
        "create=on",
        "create=\"true\"",
        "create=(1)",
    ] {
        assert_eq!(
            err1(OPEN, cfg),
            "Invalid value for key 'create': expected a boolean",
            "{cfg}"
        );
    }
}

#[test]
fn duplicates_later_wins_but_all_validated() {
    let c = ok(OPEN, "cache_size=200MB,cache_size=300MB");
    assert_eq!(c.int("cache_size"), 300 << 20);
    assert_eq!(
        err1(OPEN, "cache_size=200MB,cache_size=abc"),
        "Invalid value for key 'cache_size': expected a int"
    );
    assert_eq!(
        err1(OPEN, "cache_size=abc,cache_size=200MB"),
        "Invalid value for key 'cache_size': expected a int"
    );
}

#[test]
fn repeated_categories_merge_by_sub_key() {
    let c = ok(OPEN, "log=(enabled=true),log=(path=x)");
    assert!(c.bool("log.enabled"));
    assert_eq!(c.str("log.path"), "x");
    let c = ok(OPEN, "log=(path=y),log=(enabled=true),log=(path=z)");
    assert_eq!(c.str("log.path"), "z");
    assert_eq!(c.int("log.file_max"), 100 << 20);
}

#[test]
fn dotted_keys_are_rejected() {
    assert_eq!(
        err1(OPEN, "log.enabled=true"),
        "unknown configuration key 'log.enabled'"
    );
}

#[test]
fn colon_inside_bare_value_fails_without_separator() {
    let cfg = "app_metadata=x:y";
    assert_eq!(
        err1(Method::SessionCreate, cfg),
        parse_err(cfg, 15, "New value starts without a separator")
    );
    // A trailing ':' is tolerated; quoting keeps URIs intact.
    assert_eq!(
        ok(Method::SessionCreate, "app_metadata=x:").str("app_metadata"),
        "x"
    );
    let c = ok(Method::Checkpoint, r#"target=("table:x","file:y.wt")"#);
    assert_eq!(c.list("target"), ["table:x", "file:y.wt"]);
}

#[test]
fn space_inside_bare_value_fails_without_separator() {
    let cfg = "error_prefix=my prefix";
    assert_eq!(
        err1(OPEN, cfg),
        parse_err(cfg, 16, "New value starts without a separator")
    );
    let cfg = "create true";
    assert_eq!(
        err1(OPEN, cfg),
        parse_err(cfg, 7, "New value starts without a separator")
    );
}

#[test]
fn second_equals_is_value_already_complete() {
    let cfg = "a=b=c";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 3, "Value already complete"));
    let cfg = "create=true=false";
    assert_eq!(
        err1(OPEN, cfg),
        parse_err(cfg, 11, "Value already complete")
    );
}

#[test]
fn unbalanced_brackets() {
    let cfg = "log=(enabled=true";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 17, "Unbalanced brackets"));
    let cfg = ")";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 0, "Unbalanced brackets"));
    let cfg = "create=true)";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 12, "Unbalanced brackets"));
    let cfg = "(create";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 7, "Unbalanced brackets"));
    // Brackets are interchangeable.
    assert!(ok(OPEN, "log=[enabled=true}").bool("log.enabled"));
}

#[test]
fn forbidden_start_characters_are_unexpected() {
    let cfg = "cache_size=+5MB";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 11, "Unexpected character"));
    for ch in "!#$&'*+;<>?@\\^`|~".chars() {
        let cfg = format!("error_prefix={ch}x");
        assert_eq!(
            err1(OPEN, &cfg),
            parse_err(&cfg, 13, "Unexpected character"),
            "{cfg}"
        );
        let cfg = format!("{ch}create");
        assert_eq!(err1(OPEN, &cfg), parse_err(&cfg, 0, "Unexpected character"));
    }
    let cfg = "create,\u{1}";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 7, "Unexpected character"));
    // Inside a bare token those characters are fine.
    assert_eq!(
        ok(OPEN, "error_prefix=a!#(x;").str("error_prefix"),
        "a!#(x;"
    );
}

#[test]
fn quoted_values_are_strings() {
    assert_eq!(
        err1(OPEN, r#"cache_size="200MB""#),
        "Invalid value for key 'cache_size': expected a int"
    );
    assert_eq!(
        err1(OPEN, r#"session_max="5""#),
        "Invalid value for key 'session_max': expected a int"
    );
    let c = ok(OPEN, r#"error_prefix="a b, c=(d)""#);
    assert_eq!(c.str("error_prefix"), "a b, c=(d)");
    assert_eq!(c.get("error_prefix").unwrap().kind, ItemKind::String);
    // A quoted choice is still compared by its text.
    assert_eq!(
        ok(Method::OpenSession, r#"isolation="snapshot""#).str("isolation"),
        "snapshot"
    );
    // Text after a closing quote needs a separator.
    let cfg = r#"error_prefix="a"b"#;
    assert_eq!(
        err1(OPEN, cfg),
        parse_err(cfg, 16, "New value starts without a separator")
    );
}

#[test]
fn escapes_are_validated_not_decoded() {
    let c = ok(OPEN, r#"error_prefix="a\"b\\c\/d\be\ff\ng\rh\ti\u0041""#);
    assert_eq!(c.str("error_prefix"), r#"a\"b\\c\/d\be\ff\ng\rh\ti\u0041"#);
    let cfg = r#"error_prefix="\q""#;
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 15, "Unexpected character"));
}

#[test]
fn control_characters_in_quotes_are_unexpected() {
    for ch in ['\t', '\n', '\u{1}', '\u{7f}'] {
        let cfg = format!("error_prefix=\"a{ch}b\"");
        assert_eq!(
            err1(OPEN, &cfg),
            parse_err(&cfg, 15, "Unexpected character")
        );
    }
}

#[test]
fn non_ascii_only_inside_quotes() {
    let cfg = "error_prefix=café";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 16, "Unexpected character"));
    assert_eq!(
        ok(OPEN, "error_prefix=\"café ✓ 𝄞\"").str("error_prefix"),
        "café ✓ 𝄞"
    );
    let cfg = "é=1";
    assert_eq!(err1(OPEN, cfg), parse_err(cfg, 0, "Unexpected character"));
}

#[test]
fn non_utf8_bytes_from_c() {
    assert_eq!(config_from_bytes(b"create").unwrap(), "create");
    let e = config_from_bytes(b"error_prefix=caf\xe9").unwrap_err();
    assert_eq!(
        e.messages(),
        ["Error parsing 'error_prefix=caf\u{fffd}' at offset 16: Unexpected character"]
    );
    let e = config_from_bytes(b"error_prefix=\"caf\xe9\"").unwrap_err();
    assert!(
        e.message().ends_with("at offset 18: Unexpected character"),
        "{e}"
    );
    let e = config_from_bytes(b"error_prefix=\"\xff\"").unwrap_err();
    assert!(
        e.message().ends_with("at offset 14: Unexpected character"),
        "{e}"
    );
    // The reference tolerates overlong sequences in quotes; Rust strings cannot hold them.
    let e = config_from_bytes(b"error_prefix=\"\xc0\x80\"").unwrap_err();
    assert!(
        e.message().ends_with("at offset 14: Unexpected character"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------------
// Value typing

#[test]
fn int_suffixes_stack() {
    for (v, want) in [
        ("1KK", 1i64 << 20),
        ("2MB", 2 << 20),
        ("1gb", 1 << 30),
        ("3G", 3 << 30),
        ("1T", 1 << 40),
        ("1048576b", 1 << 20),
        ("1024bk", 1 << 20),
        ("1024K", 1 << 20),
    ] {
        let cfg = format!("cache_size={v}");
        assert_eq!(ok(OPEN, &cfg).int("cache_size"), want, "{v}");
    }
    assert_eq!(parse_size("1P"), Some(1 << 50));
    assert_eq!(parse_size("-5"), Some(-5));
    assert_eq!(parse_size("-5B"), Some(-5));
    assert_eq!(parse_size("007"), Some(7));
}

#[test]
fn malformed_and_overflowing_ints() {
    for v in [
        "1.5GB",
        "0x100000",
        "9223372036854775808",
        "-9223372036854775809",
        "9223372036854775807K",
        "8388608T",
        "-1K",
        "5e3",
        "-",
        "--5",
        "1KX",
    ] {
        let cfg = format!("cache_size={v}");
        assert_eq!(
            err1(OPEN, &cfg),
            "Invalid value for key 'cache_size': expected a int",
            "{v}"
        );
    }
    // The reference's shift only notices a set sign bit: 2^64 wraps to 0.
    let (k, v) = Parser::new("x=16384P").next().unwrap().unwrap();
    assert_eq!((k, v.kind, v.num), ("x", ItemKind::Num, 0));
    assert_eq!(
        err1(OPEN, "cache_size=16384P"),
        "Value too small for key 'cache_size' the minimum is 1048576"
    );
}

#[test]
fn limits_print_plain_digits() {
    assert_eq!(
        err1(OPEN, "cache_size=1KB"),
        "Value too small for key 'cache_size' the minimum is 1048576"
    );
    assert_eq!(
        err1(OPEN, "cache_size=11TB"),
        "Value too large for key 'cache_size' the maximum is 10995116277760"
    );
    assert_eq!(
        err1(OPEN, "session_max=0"),
        "Value too small for key 'session_max' the minimum is 1"
    );
    assert_eq!(ok(OPEN, "cache_size=1MB").int("cache_size"), 1 << 20);
    assert_eq!(ok(OPEN, "cache_size=10TB").int("cache_size"), 10 << 40);
    assert_eq!(
        err1(OPEN, "buffer_alignment=-2"),
        "Value too small for key 'buffer_alignment' the minimum is -1"
    );
}

#[test]
fn choices() {
    assert_eq!(
        err1(Method::OpenSession, "isolation=bogus"),
        "Value 'bogus' not a permitted choice for key 'isolation'"
    );
    assert_eq!(
        err1(Method::SessionCreate, "checksum=maybe"),
        "Value 'maybe' not a permitted choice for key 'checksum'"
    );
    assert_eq!(
        err1(Method::CommitTransaction, "sync=5"),
        "Value '5' not a permitted choice for key 'sync'"
    );
    let c = ok(Method::OpenSession, "isolation=read-committed");
    assert_eq!(c.str("isolation"), "read-committed");
    assert_eq!(ok(Method::OpenSession, "").str("isolation"), "snapshot");
}

#[test]
fn lists() {
    assert_eq!(
        err1(OPEN, "statistics=fast"),
        "Invalid value for key 'statistics': expected a list"
    );
    assert_eq!(ok(OPEN, "statistics=(fast)").list("statistics"), ["fast"]);
    assert!(ok(OPEN, "statistics=()").list("statistics").is_empty());
    assert!(ok(OPEN, "statistics=[]").list("statistics").is_empty());
    assert_eq!(ok(OPEN, "").list("statistics"), ["none"]);
    assert_eq!(
        err1(OPEN, "statistics=(fast,bogus)"),
        "Value 'bogus' not a permitted choice for key 'statistics'"
    );
    assert_eq!(
        err1(Method::OpenCursor, "statistics=(none)"),
        "Value 'none' not a permitted choice for key 'statistics'"
    );
    let c = ok(OPEN, "verbose=[api,write],extensions=");
    assert_eq!(c.list("verbose"), ["api", "write"]);
    assert!(c.list("extensions").is_empty());
    assert!(ok(OPEN, "").list("verbose").is_empty());
    let c = ok(Method::SessionCreate, "columns=(k,\"v 1\",v2)");
    assert_eq!(c.list("columns"), ["k", "v 1", "v2"]);
    // A list element with a syntax error inside is reported by the element scan.
    let cfg = "statistics=(a=b=c)";
    assert_eq!(
        err1(OPEN, cfg),
        parse_err("(a=b=c)", 4, "Value already complete")
    );
}

#[test]
fn string_accepts_groups() {
    assert_eq!(ok(OPEN, "error_prefix=(a,b)").str("error_prefix"), "(a,b)");
}

#[test]
fn category_sub_key_errors_then_category_message() {
    assert_eq!(
        errs(OPEN, "log=(bogus=1)"),
        [
            "unknown configuration key 'bogus'",
            "Invalid value for key 'log': expected a category"
        ]
    );
    assert_eq!(
        errs(OPEN, "log=(enabled=maybe)"),
        [
            "Invalid value for key 'enabled': expected a boolean",
            "Invalid value for key 'log': expected a category"
        ]
    );
    assert_eq!(
        errs(OPEN, "log=true"),
        [
            "unknown configuration key 'true'",
            "Invalid value for key 'log': expected a category"
        ]
    );
    assert_eq!(
        errs(OPEN, "statistics_log=(wait=100001)"),
        [
            "Value too large for key 'wait' the maximum is 100000",
            "Invalid value for key 'statistics_log': expected a category"
        ]
    );
    assert_eq!(
        errs(
            Method::SessionCreate,
            "lsm=(merge_custom=(start_generation=11))"
        ),
        [
            "Value too large for key 'start_generation' the maximum is 10",
            "Invalid value for key 'merge_custom': expected a category",
            "Invalid value for key 'lsm': expected a category"
        ]
    );
    assert_eq!(
        errs(OPEN, "log=(a=b=c)"),
        [
            parse_err("(a=b=c)", 4, "Value already complete").as_str(),
            "Invalid value for key 'log': expected a category"
        ]
    );
    let c = ok(OPEN, "log=(enabled),log=(),log=");
    assert!(c.bool("log.enabled"));
    assert!(c.is_set("log"));
}

#[test]
fn category_window_follows_the_reference() {
    // The reference checks the text one byte after the key name, as long as the value (to the
    // end of the string for an empty value), so these unusual spellings fail as they do there.
    assert_eq!(
        errs(OPEN, "log=,create"),
        [
            "unknown configuration key 'create'",
            "Invalid value for key 'log': expected a category"
        ]
    );
    assert_eq!(
        errs(OPEN, "log = (enabled=true)"),
        [
            "Invalid value for key 'enabled': expected a boolean",
            "Invalid value for key 'log': expected a category"
        ]
    );
    assert_eq!(
        errs(OPEN, "log=(enabled),log,log=()")[0],
        "unknown configuration key 'log'"
    );
    ok(OPEN, "create,log=");
    ok(OPEN, "log,");
}

#[test]
fn bare_category_key_ending_the_string_is_einval() {
    // The window of a bare category key ending the string starts past its end: EINVAL, for
    // every category key of every method (no list of names).
    let cases: &[(Method, &[&str])] = &[
        (
            OPEN,
            &["log", "eviction", "statistics_log", "operation_tracking", "debug_mode",
              "io_capacity", "file_manager", "checkpoint", "create,log", "log=(),log"],
        ),
        (
            Method::ConnReconfigure,
            &["log", "eviction", "statistics_log", "operation_tracking", "debug_mode",
              "io_capacity", "file_manager", "checkpoint"],
        ),
        (Method::OpenSession, &["debug", "prefetch"]),
        (Method::SessionReconfigure, &["debug", "prefetch"]),
        (Method::OpenCursor, &["incremental", "target,debug", "=,debug", "debug"]),
    ];
    for (m, cfgs) in cases {
        for cfg in *cfgs {
            let key = cfg.rsplit(',').next().unwrap();
            assert_eq!(
                errs(*m, cfg).last().unwrap(),
                &format!("Invalid value for key '{key}': expected a category"),
                "{cfg:?} for {}",
                m.api_name()
            );
        }
    }
    // The general rule: every category key of every method.
    for m in Method::ALL {
        if m == Method::BeginTransaction {
            continue;
        }
        for d in m.keys().iter().filter(|d| d.kind == Kind::Category) {
            let e = validate(m, Some(d.name), None).unwrap_err();
            assert_eq!(e.errno(), 22, "{} {}", m.api_name(), d.name);
        }
    }
}

#[test]
fn unknown_keys() {
    assert_eq!(
        err1(OPEN, "isolation=snapshot"),
        "unknown configuration key 'isolation'"
    );
    assert_eq!(
        err1(Method::ConnReconfigure, "in_memory=true"),
        "unknown configuration key 'in_memory'"
    );
    assert_eq!(err1(OPEN, "5=true"), "Invalid configuration key found: '5'");
}

#[test]
fn begin_transaction_uses_the_compiled_checker_texts() {
    let bt = Method::BeginTransaction;
    assert_eq!(
        err1(bt, "isolation=bogus"),
        "Value 'bogus' is not a valid choice"
    );
    assert_eq!(
        err1(bt, "bogus"),
        "Error compiling 'bogus', unknown key 'bogus' for method 'WT_SESSION.begin_transaction'"
    );
    assert_eq!(
        err1(bt, "no_timestamp=on"),
        "Value 'on' expected to be a boolean"
    );
    assert_eq!(
        err1(bt, "priority=200"),
        "Value '200' too large, the maximum is 100"
    );
    assert_eq!(
        err1(bt, "priority=-101"),
        "Value '-101' too small, the minimum is -100"
    );
    assert_eq!(
        err1(bt, "operation_timeout_ms=x"),
        "Value 'x' expected to be an integer"
    );
    assert_eq!(
        err1(bt, "roundup_timestamps=(bogus),name=x"),
        "Error compiling 'bogus),name=x', unknown key 'bogus' for method 'WT_SESSION.begin_transaction'"
    );
    assert_eq!(
        err1(bt, "roundup_timestamps=true"),
        "Value 'true' expected to be a category"
    );
    assert_eq!(
        err1(bt, "roundup_timestamps={read}"),
        "Value '{read}' expected () or []"
    );
    let cfg = "isolation=a=b";
    assert_eq!(err1(bt, cfg), parse_err(cfg, 11, "Value already complete"));
    // An empty choice is allowed here.
    ok(bt, "isolation=");
    let c = ok(
        bt,
        "isolation=read-committed,priority=-5,roundup_timestamps=(read=true),sync",
    );
    assert_eq!(c.str("isolation"), "read-committed");
    assert_eq!(c.int("priority"), -5);
    assert!(c.bool("roundup_timestamps.read"));
    assert!(!c.bool("roundup_timestamps.prepared"));
    assert!(c.bool("sync"));
    assert!(!ok(bt, "").bool("sync"));
}

#[test]
fn format_keys_use_the_callers_checker() {
    let check = |f: &str| -> Result<(), String> {
        if f.bytes().all(|b| b"SuiqQ".contains(&b)) {
            Ok(())
        } else {
            Err(format!("Invalid type '{f}' found in format '{f}'"))
        }
    };
    let c = validate(
        Method::SessionCreate,
        Some("key_format=S,value_format=u"),
        Some(&check),
    )
    .unwrap();
    assert_eq!(c.str("key_format"), "S");
    let e = validate(Method::SessionCreate, Some("key_format=X"), Some(&check)).unwrap_err();
    assert_eq!(e.messages(), ["Invalid type 'X' found in format 'X'"]);
    // Without a checker formats are accepted.
    ok(Method::SessionCreate, "key_format=X");
    assert_eq!(ok(Method::SessionCreate, "").str("value_format"), "u");
}

// ---------------------------------------------------------------------------------------------
// Look-ups

#[test]
fn defaults() {
    let c = ok(OPEN, "create");
    assert_eq!(c.int("cache_size"), 100 << 20);
    assert_eq!(c.int("session_max"), 100);
    assert!(c.bool("cache_cursors"));
    assert!(!c.bool("in_memory"));
    assert!(!c.bool("log.enabled"));
    assert_eq!(c.str("log.path"), ".");
    assert_eq!(c.int("log.file_max"), 100 << 20);
    assert_eq!(c.str("statistics_log.timestamp"), "%b %d %H:%M:%S");
    assert_eq!(c.str("transaction_sync.method"), "fsync");
    assert_eq!(c.int("buffer_alignment"), -1);
    assert_eq!(c.str("error_prefix"), "");
    let c = ok(Method::SessionCreate, "");
    assert_eq!(c.int("leaf_page_max"), 32 << 10);
    assert_eq!(c.str("type"), "file");
    assert!(c.bool("log.enabled"));
    let c = ok(Method::OpenCursor, "");
    assert!(c.bool("overwrite"));
    assert_eq!(c.str("bulk"), "false");
}

#[test]
fn set_keys_in_order() {
    let c = ok(
        OPEN,
        "create,log=(enabled=true,path=x),cache_size=1GB,create=false",
    );
    assert_eq!(
        c.set_keys().collect::<Vec<_>>(),
        [
            "create",
            "log",
            "log.enabled",
            "log.path",
            "cache_size",
            "create"
        ]
    );
    assert!(!c.bool("create"));
    assert!(c.is_set("log.path"));
    assert!(!c.is_set("log.file_max"));
}

#[test]
fn is_trivial_fast_path() {
    assert!(is_trivial(None));
    assert!(is_trivial(Some("")));
    assert!(is_trivial(Some("overwrite=false")));
    assert!(is_trivial(Some("overwrite=true")));
    assert!(!is_trivial(Some("overwrite")));
    assert!(!is_trivial(Some("raw")));
}

#[test]
fn statistics_rule() {
    let check = |cfg: &str| check_statistics(&ok(OPEN, cfg));
    assert_eq!(
        check("statistics=(all,fast)").unwrap_err().messages(),
        [STATISTICS_ONLY_ONE]
    );
    assert_eq!(
        check("statistics=(none,fast)").unwrap_err().messages(),
        [STATISTICS_ONLY_ONE]
    );
    assert_eq!(
        check("statistics=(clear)").unwrap_err().messages(),
        [STATISTICS_CLEAR_NEEDS_ENABLED]
    );
    assert_eq!(
        check("statistics=(none,clear)").unwrap_err().message(),
        "the value \"clear\" can only be specified if statistics are enabled"
    );
    let f = check("statistics=(fast,clear)").unwrap();
    assert!(f.fast && f.clear && !f.all && !f.none);
    let f = check("statistics=(cache_walk)").unwrap();
    assert!(f.fast && f.cache_walk);
    let f = check("statistics=(all)").unwrap();
    assert!(f.all && f.fast && f.cache_walk && f.tree_walk);
    assert!(check("").unwrap().none);
    assert!(check("statistics=()").unwrap().none);
    let f = check("statistics=(fast=false,all)").unwrap();
    assert!(f.all);
    let f = StatisticsFlags::from_config(&ok(Method::ConnReconfigure, "statistics=(fast)"));
    assert!(f.fast && !f.none);
}

// ---------------------------------------------------------------------------------------------
// Parser API

#[test]
fn parser_items_mirror_wt_config_item() {
    let src = r#"a="s",b=true,c=word,d=5K,e=(x=1,y=(z)),f,g=false,"h"=-3,i=1.5"#;
    let items: Vec<_> = Parser::new(src).map(Result::unwrap).collect();
    let kinds: Vec<_> = items
        .iter()
        .map(|(k, v)| (*k, v.kind, v.text, v.num))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a", ItemKind::String, "s", 1),
            ("b", ItemKind::Bool, "true", 1),
            ("c", ItemKind::Id, "word", 1),
            ("d", ItemKind::Num, "5K", 5120),
            ("e", ItemKind::Struct, "(x=1,y=(z))", 1),
            ("f", ItemKind::Bool, "", 1),
            ("g", ItemKind::Bool, "false", 0),
            ("h", ItemKind::Num, "-3", -3),
            ("i", ItemKind::Id, "1.5", 1),
        ]
    );
    assert_eq!(ItemKind::Struct as i32, 4);
    let nested: Vec<_> = Parser::new(items[4].1.text).map(Result::unwrap).collect();
    assert_eq!(nested[0].0, "x");
    assert_eq!(nested[1].1.text, "(z)");
    let mut p = Parser::new(r#""q"=1,5=2"#);
    assert_eq!(p.next_pair().unwrap().unwrap().0.kind, ItemKind::String);
    assert_eq!(p.next_pair().unwrap().unwrap().0.kind, ItemKind::Num);
    assert!(p.next_pair().is_none());
    // After an error the parser stops.
    let mut p = Parser::new("a=b=c,d");
    assert!(p.next().unwrap().is_err());
    assert!(p.next().is_none());
}

#[test]
fn unterminated_quote_reads_as_empty_like_the_reference() {
    let c = ok(OPEN, "error_prefix=\"abc");
    assert_eq!(c.str("error_prefix"), "");
}

#[test]
fn error_type() {
    let e = validate(OPEN, Some("log=(x)"), None).unwrap_err();
    assert_eq!(e.errno(), EINVAL);
    assert_eq!(
        e.to_string(),
        "unknown configuration key 'x'\nInvalid value for key 'log': expected a category"
    );
}

// ---------------------------------------------------------------------------------------------
// Schema

fn count_keys(defs: &[KeyDef]) -> usize {
    defs.iter().map(|d| 1 + count_keys(d.sub)).sum()
}

fn assert_sorted(defs: &'static [KeyDef], prefix: &str) {
    for w in defs.windows(2) {
        assert!(
            w[0].name < w[1].name,
            "{prefix}: {} !< {}",
            w[0].name,
            w[1].name
        );
    }
    for d in defs {
        let path = if prefix.is_empty() {
            d.name.to_string()
        } else {
            format!("{prefix}.{}", d.name)
        };
        assert_eq!(d.path, path);
        assert_eq!(
            d.kind == Kind::Category,
            !d.sub.is_empty() || d.kind == Kind::Category
        );
        assert_sorted(d.sub, &path);
    }
}

#[test]
fn schema_tables() {
    let counts = [
        (Method::WiredtigerOpen, 167),
        (Method::ConnReconfigure, 104),
        (Method::ConnClose, 3),
        (Method::OpenSession, 9),
        (Method::SessionReconfigure, 9),
        (Method::SessionCreate, 84),
        (Method::SessionDrop, 5),
        (Method::OpenCursor, 29),
        (Method::CursorReconfigure, 3),
        (Method::BeginTransaction, 11),
        (Method::CommitTransaction, 4),
        (Method::RollbackTransaction, 1),
        (Method::Checkpoint, 12),
    ];
    assert_eq!(Method::ALL.len(), counts.len());
    for (m, n) in counts {
        assert_eq!(count_keys(m.keys()), n, "{}", m.api_name());
        assert_sorted(m.keys(), "");
        assert_eq!(Method::from_api_name(m.api_name()), Some(m));
    }
    assert_eq!(Method::SessionCreate.api_name(), "WT_SESSION.create");
    assert_eq!(
        Method::CursorReconfigure.api_name(),
        "WT_CURSOR.reconfigure"
    );
    assert_eq!(
        Method::ConnReconfigure.api_name(),
        "WT_CONNECTION.reconfigure"
    );
    let d = KeyDef::lookup(OPEN.keys(), "block_cache.hashsize").unwrap();
    assert_eq!((d.min, d.max), (Some(512), Some(256 << 10)));
    let d = KeyDef::lookup(Method::SessionCreate.keys(), "allocation_size").unwrap();
    assert_eq!(
        (d.min, d.max, d.default_num),
        (Some(512), Some(128 << 20), 4096)
    );
    let d = KeyDef::lookup(OPEN.keys(), "chunk_cache.type").unwrap();
    assert!(d.undocumented);
    assert_eq!(d.choices, ["FILE", "DRAM"]);
    let d = KeyDef::lookup(Method::SessionCreate.keys(), "key_format").unwrap();
    assert_eq!(d.kind, Kind::Format);
}

#[test]
fn every_key_accepts_its_default() {
    fn walk(m: Method, defs: &'static [KeyDef], wrap: &dyn Fn(String) -> String) {
        for d in defs {
            let value = match d.kind {
                Kind::Category => {
                    let inner = d;
                    walk(m, inner.sub, &|s| wrap(format!("{}=({s})", inner.name)));
                    continue;
                }
                Kind::List if d.default.is_empty() || d.default == "[]" => "()".to_string(),
                Kind::List => format!("({})", d.default),
                Kind::Boolean | Kind::Int if d.default.is_empty() => continue,
                // The reference's own default may sit outside its limits
                // (log.force_write_wait: default 0, min 1); defaults are never checked there.
                Kind::Int
                    if d.min.is_some_and(|m| d.default_num < m)
                        || d.max.is_some_and(|m| d.default_num > m) =>
                {
                    continue
                }
                _ if d.choices.is_empty() || !d.default.is_empty() => {
                    format!("\"{}\"", d.default)
                }
                _ => continue,
            };
            let value = match d.kind {
                Kind::Boolean | Kind::Int => d.default.to_string(),
                _ => value,
            };
            let cfg = wrap(format!("{}={value}", d.name));
            validate(m, Some(&cfg), None)
                .unwrap_or_else(|e| panic!("{}: {cfg}: {e}", m.api_name()));
        }
    }
    for m in Method::ALL {
        walk(m, m.keys(), &|s| s);
    }
}

#[test]
fn generated_schema_is_up_to_date() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let spec = [
        std::path::PathBuf::from("/work/shared/spec/config.md"),
        root.join("../shared/spec/config.md"),
    ]
    .into_iter()
    .find(|p| p.exists());
    let Some(spec) = spec else {
        println!("note: config.md not found; skipping the generated-schema check");
        return;
    };
    let script = root.join("tools/gen_config_schema.py");
    if !script.exists() {
        println!(
            "note: {} not found; skipping the generated-schema check",
            script.display()
        );
        return;
    }
    let out = std::env::temp_dir().join(format!("config_schema_{}.rs", std::process::id()));
    let status = match std::process::Command::new("python3")
        .arg(&script)
        .arg(&spec)
        .arg(&out)
        .status()
    {
        Ok(s) => s,
        Err(e) => {
            println!("note: cannot run python3 ({e}); skipping the generated-schema check");
            return;
        }
    };
    assert!(status.success(), "generator failed");
    let fresh = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let current = std::fs::read_to_string(root.join("src/config/schema.rs")).unwrap();
    assert!(
        fresh == current,
        "src/config/schema.rs is stale: run python3 tools/gen_config_schema.py {}",
        spec.display()
    );
}

// ---------------------------------------------------------------------------------------------
// Robustness

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn random_input_never_panics() {
    const ALPHABET: &[u8] = b"()[]{}=:,\" \t\\-0123456789KkMGTPbBlogenabledcreatstiuf_./%!#+x";
    const WORDS: &[&str] = &[
        "log",
        "enabled",
        "statistics",
        "(fast)",
        "cache_size",
        "=",
        ",",
        "(",
        ")",
        "\"",
        "1KK",
        "true",
        "isolation",
        "roundup_timestamps",
        "lsm",
        "merge_custom",
        "é",
        "\u{1}",
        "\\u",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..20_000 {
        let len = (rng.next() % 40) as usize;
        let mut bytes = Vec::with_capacity(len * 2);
        for _ in 0..len {
            match rng.next() % 4 {
                0 => bytes.push(rng.next() as u8),
                1 => bytes.extend_from_slice(
                    WORDS[(rng.next() % WORDS.len() as u64) as usize].as_bytes(),
                ),
                _ => bytes.push(ALPHABET[(rng.next() % ALPHABET.len() as u64) as usize]),
            }
        }
        let Ok(s) = config_from_bytes(&bytes) else {
            continue;
        };
        for (_, v) in Parser::new(s).flatten() {
            let _ = Parser::new(v.text).count();
            let _ = list_elements(v.text);
        }
        let fmt = |_: &str| -> Result<(), String> { Ok(()) };
        for m in Method::ALL {
            if let Ok(c) = validate(m, Some(s), Some(&fmt)) {
                let _ = c.set_keys().count();
                for d in m.keys() {
                    let _ = (
                        c.is_set(d.path),
                        c.str(d.path),
                        c.list(d.path),
                        c.int(d.path),
                    );
                    for sd in d.sub {
                        let _ = (c.bool(sd.path), c.str(sd.path));
                    }
                }
                if matches!(m, Method::WiredtigerOpen | Method::ConnReconfigure) {
                    let _ = check_statistics(&c);
                }
            }
        }
    }
}
