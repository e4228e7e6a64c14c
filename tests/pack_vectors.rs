//! Checks every line of `tests/data/pack-vectors.tsv` (produced by the reference engine).
//!
//! Columns: format, values, hex, rc, size, buflen. Values syntax found in the file:
//! * `[v1, v2, ...]`: the C arguments in order, separated by `", "`; `[]` for none;
//! * decimal integers, possibly negative, up to 2^64-1;
//! * `"..."`: a C string (for `s` fields the exact bytes read); `\uXXXX` stands for the byte
//!   XXXX (always <= 0xff in the file), and `\\`, `\"` for themselves;
//! * `x'..'`: a `WT_ITEM` holding the hex bytes.
//!
//! `hex` is `-` when rc != 0; `size` is the `wiredtiger_struct_size` result or `rc=N`;
//! `buflen` is the buffer length given to the reference, modelled here like the C wrapper
//! does: pack into a `Vec` and answer ENOMEM (12) when the result is longer than `buflen`.

use unlatched::pack::{pack, pack_into, packed_size, unpack, Arg, CArg, Format};

const EXPECTED_VECTORS: usize = 309;
const WT_PANIC: i32 = -31804;
const ENOMEM: i32 = 12;

enum Val {
    Num(i128),
    Bytes(Vec<u8>),
}

fn parse_values(s: &str) -> Result<Vec<Val>, String> {
    let inner = s
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .ok_or_else(|| format!("values not in [..]: {s}"))?;
    let b = inner.as_bytes();
    let mut vals = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b',' || b[i] == b' ' {
            i += 1;
        } else if b[i] == b'"' {
            let mut out = Vec::new();
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err(format!("unterminated string in {s}")),
                    Some(b'"') => break,
                    Some(b'\\') => match b.get(i + 1) {
                        Some(b'u') => {
                            let h = inner.get(i + 2..i + 6).ok_or("short \\u escape")?;
                            let v = u32::from_str_radix(h, 16).map_err(|e| e.to_string())?;
                            out.push(u8::try_from(v).map_err(|_| format!("\\u{h} > 0xff"))?);
                            i += 6;
                        }
                        Some(&c) => {
                            out.push(c);
                            i += 2;
                        }
                        None => return Err("dangling backslash".into()),
                    },
                    Some(&c) => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            i += 1;
            vals.push(Val::Bytes(out));
        } else if inner[i..].starts_with("x'") {
            let end = inner[i + 2..].find('\'').ok_or("unterminated item")? + i + 2;
            vals.push(Val::Bytes(unhex(&inner[i + 2..end])?));
            i = end + 1;
        } else {
            let end = inner[i..].find(',').map_or(inner.len(), |p| p + i);
            let n = inner[i..end]
                .trim()
                .parse::<i128>()
                .map_err(|e| format!("{e}: {s}"))?;
            vals.push(Val::Num(n));
            i = end;
        }
    }
    Ok(vals)
}

fn unhex(h: &str) -> Result<Vec<u8>, String> {
    if h.len() % 2 != 0 {
        return Err(format!("odd hex {h}"));
    }
    (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).map_err(|e| format!("{e}: {h}")))
        .collect()
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn to_args<'a>(cargs: &[CArg], vals: &'a [Val]) -> Result<Vec<Arg<'a>>, String> {
    if cargs.len() != vals.len() {
        return Err(format!(
            "format takes {} args, line has {}",
            cargs.len(),
            vals.len()
        ));
    }
    cargs
        .iter()
        .zip(vals)
        .map(|(c, v)| match (c, v) {
            (c, Val::Num(n)) if c.is_signed() => Ok(Arg::Int(*n as i64)),
            (c, Val::Num(n)) if c.is_unsigned() => Ok(Arg::Uint(*n as u64)),
            (c, Val::Bytes(b)) if c.is_bytes() => Ok(Arg::Bytes(b)),
            _ => Err(format!("value kind does not match {c:?}")),
        })
        .collect()
}

/// Checks one vector line; `Err` describes the mismatch.
fn check(cols: &[&str]) -> Result<(), String> {
    let [format, values, want_hex, rc, size, buflen] = cols else {
        return Err(format!("expected 6 columns, got {}", cols.len()));
    };
    let want_rc: i32 = rc.parse().map_err(|_| format!("bad rc {rc}"))?;
    let buflen: usize = buflen.parse().map_err(|_| format!("bad buflen {buflen}"))?;
    let vals = parse_values(values)?;

    let fmt = match Format::parse(format) {
        Ok(f) => f,
        Err(e) => {
            // Single-character invalid formats panic in the reference; EINVAL is required here.
            let ok_rc = e.errno() == want_rc || (want_rc == WT_PANIC && format.len() == 1);
            if !ok_rc || e.errno() != 22 {
                return Err(format!(
                    "parse error {e:?} (errno {}), want rc {want_rc}",
                    e.errno()
                ));
            }
            if *size != format!("rc={want_rc}") {
                return Err(format!("invalid format but size column is {size}"));
            }
            let silent = format.len() >= 2 && matches!(format.as_bytes()[0], b'<' | b'>' | b'@');
            if e.message().is_some() == silent {
                return Err(format!("message presence wrong: {:?}", e.message()));
            }
            return Ok(());
        }
    };
    if want_rc != 0 && want_rc != ENOMEM {
        return Err(format!("format parsed but want rc {want_rc}"));
    }
    let args = to_args(fmt.cargs(), &vals)?;

    let want_size: usize = size.parse().map_err(|_| format!("bad size {size}"))?;
    let got_size = packed_size(&fmt, &args).map_err(|e| format!("packed_size: {e:?}"))?;
    if got_size != want_size {
        return Err(format!("packed_size {got_size}, want {want_size}"));
    }

    // The C wrapper: pack into a Vec, ENOMEM when it exceeds the caller's length.
    let mut packed = Vec::new();
    pack(&fmt, &args, &mut packed).map_err(|e| format!("pack: {e:?}"))?;
    let got_rc = if packed.len() > buflen { ENOMEM } else { 0 };
    if got_rc != want_rc {
        return Err(format!(
            "rc {got_rc}, want {want_rc} (packed {})",
            hex(&packed)
        ));
    }
    // pack_into with the caller's length must agree.
    let mut buf = vec![0u8; buflen];
    let into_rc = match pack_into(&fmt, &args, &mut buf) {
        Ok(n) if buf[..n] == packed[..] => 0,
        Ok(_) => return Err("pack_into bytes differ".into()),
        Err(e) => e.errno(),
    };
    if into_rc != want_rc {
        return Err(format!("pack_into rc {into_rc}, want {want_rc}"));
    }
    if want_rc != 0 {
        return if *want_hex == "-" {
            Ok(())
        } else {
            Err("rc != 0 but hex given".into())
        };
    }
    if hex(&packed) != *want_hex {
        return Err(format!("packed {}, want {want_hex}", hex(&packed)));
    }

    let mut out = Vec::new();
    let used = unpack(&fmt, &packed, &mut out).map_err(|e| format!("unpack: {e:?}"))?;
    if used != packed.len() {
        return Err(format!("unpack consumed {used} of {}", packed.len()));
    }
    let mut again = Vec::new();
    pack(&fmt, &out, &mut again).map_err(|e| format!("re-pack: {e:?}"))?;
    if again != packed {
        return Err(format!("re-packed {} from {out:?}", hex(&again)));
    }
    Ok(())
}

#[test]
fn every_vector_line() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pack-vectors.tsv");
    let text = std::fs::read_to_string(path).expect("read pack-vectors.tsv");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        checked += 1;
        let cols: Vec<&str> = line.split('\t').collect();
        if let Err(e) = check(&cols) {
            failures.push(format!("line {}: {line:?}: {e}", i + 1));
        }
    }
    for f in &failures {
        eprintln!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} vectors failed",
        failures.len()
    );
    assert_eq!(checked, EXPECTED_VECTORS);
}

/// Vectors for forms the recorded file lacks, in its column syntax. `NU` keeps its length
/// prefix (varint N, then N bytes truncated or NUL-padded): the reference's pack code treats
/// a counted `U` like `Nu` plus the prefix, and unlike `u` never drops it.
const EXTRA_VECTORS: &[&str] = &[
    "3U\t[x'6162']\t83616200\t0\t4\t256",
    "2U\t[x'616263']\t826162\t0\t3\t256",
    "0U\t[x'616263']\t80\t0\t1\t256",
    "2Ui\t[x'61', 1]\t82610081\t0\t4\t256",
    "U3U\t[x'61', x'62']\t816183620000\t0\t6\t256",
    "3U\t[x'6162']\t-\t12\t4\t3",
];

#[test]
fn extra_vectors() {
    let failures: Vec<String> = EXTRA_VECTORS
        .iter()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            check(&cols).err().map(|e| format!("{line:?}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}
