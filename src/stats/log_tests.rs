use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::*;
use crate::error::Kind;

fn open_config(s: &str) -> Result<StatsLogConfig> {
    StatsLogConfig::from_config(&validate(Method::WiredtigerOpen, Some(s), None).unwrap(), None)
}

fn gmtime(t: libc::time_t) -> libc::tm {
    // SAFETY: all-zero is a valid `tm`; gmtime_r fills it from a valid time.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    // SAFETY: both pointers are valid for the call.
    unsafe { libc::gmtime_r(&t, &mut tm) };
    tm
}

fn expand(format: &str, t: libc::time_t) -> String {
    String::from_utf8(strftime(&CString::new(format).unwrap(), &gmtime(t))).unwrap()
}

/// A fresh, empty directory under the system's temporary directory.
fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "unlatched-statlog-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every log file's lines, files in name order.
fn log_lines(dir: &Path) -> Vec<String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("WiredTigerStat."))
        .collect();
    files.sort();
    files.iter().flat_map(|f| std::fs::read_to_string(f).unwrap().lines().map(String::from).collect::<Vec<_>>()).collect()
}

fn conn_dump(name: &str, stats: Snapshot) -> Dump {
    Dump { name: name.into(), family: Family::Connection, stats }
}

fn table_dump(name: &str, stats: Snapshot) -> Dump {
    Dump { name: name.into(), family: Family::DataSource, stats }
}

// A small JSON reader, enough to check the records' structure.
#[derive(Debug, PartialEq)]
enum J {
    Obj(Vec<(String, J)>),
    Str(String),
    Num(i64),
}

impl J {
    fn get(&self, key: &str) -> &J {
        match self {
            J::Obj(m) => &m.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key}")).1,
            _ => panic!("not an object"),
        }
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            J::Obj(m) => m.iter().map(|(k, _)| k.as_str()).collect(),
            _ => panic!("not an object"),
        }
    }
}

fn parse_json(text: &str) -> J {
    fn string(b: &[u8], i: &mut usize) -> String {
        assert_eq!(b[*i], b'"');
        *i += 1;
        let mut s = String::new();
        while b[*i] != b'"' {
            if b[*i] == b'\\' {
                *i += 1;
            }
            s.push(b[*i] as char);
            *i += 1;
        }
        *i += 1;
        s
    }
    fn value(b: &[u8], i: &mut usize) -> J {
        match b[*i] {
            b'"' => J::Str(string(b, i)),
            b'{' => {
                *i += 1;
                let mut m = Vec::new();
                if b[*i] == b'}' {
                    *i += 1;
                    return J::Obj(m);
                }
                loop {
                    let k = string(b, i);
                    assert_eq!(b[*i], b':');
                    *i += 1;
                    m.push((k, value(b, i)));
                    *i += 1;
                    match b[*i - 1] {
                        b',' => {}
                        b'}' => return J::Obj(m),
                        c => panic!("unexpected {}", c as char),
                    }
                }
            }
            _ => {
                let start = *i;
                while b[*i] == b'-' || b[*i].is_ascii_digit() {
                    *i += 1;
                }
                J::Num(std::str::from_utf8(&b[start..*i]).unwrap().parse().unwrap())
            }
        }
    }
    let b = text.as_bytes();
    let mut i = 0;
    let v = value(b, &mut i);
    assert_eq!(i, b.len(), "trailing text");
    v
}

#[test]
fn defaults_log_nothing() {
    let c = open_config("").unwrap();
    assert_eq!(c, StatsLogConfig::default());
    assert_eq!(
        c,
        StatsLogConfig {
            wait: 0,
            json: false,
            on_close: false,
            path: ".".into(),
            sources: vec![],
            timestamp: "%b %d %H:%M:%S".into(),
        }
    );
    assert!(!c.runs());
}

#[test]
fn open_settings() {
    let c = open_config(
        "statistics_log=(wait=5,json=true,on_close=true,path=stats,sources=(\"file:a.wt\",\"lsm:b\"),timestamp=\"%H\")",
    )
    .unwrap();
    assert_eq!(c.wait, 5);
    assert!(c.runs() && c.json && c.on_close);
    assert_eq!(c.path, "stats");
    assert_eq!(c.sources, ["file:a.wt", "lsm:b"]);
    assert_eq!(c.timestamp, "%H");
    assert!(c.matches_source("file:a.wt") && c.matches_source("lsm:b1") && !c.matches_source("file:b.wt"));
    assert!(!open_config("statistics_log=(wait=0)").unwrap().runs());
}

#[test]
fn sources_are_file_or_lsm_uris() {
    for bad in ["table:t", "colgroup:t", "t"] {
        let e = open_config(&format!("statistics_log=(sources=(\"{bad}\"))")).unwrap_err();
        assert_eq!(e.kind(), Kind::Invalid);
        assert_eq!(e.messages().collect::<Vec<_>>(), [SOURCES_ONLY_FILE_OR_LSM]);
    }
    assert!(open_config("statistics_log=(sources=(\"file:\"))").unwrap().matches_source("file:x.wt"));
}

#[test]
fn reconfigure_keeps_what_it_does_not_set() {
    let open = open_config("statistics_log=(wait=5,path=stats,timestamp=\"%H\")").unwrap();
    let re = validate(Method::ConnReconfigure, Some("statistics_log=(json=true)"), None).unwrap();
    let c = StatsLogConfig::from_config(&re, Some(&open)).unwrap();
    assert_eq!(c, StatsLogConfig { json: true, ..open.clone() });
    // path is not a reconfigure key at all.
    assert!(validate(Method::ConnReconfigure, Some("statistics_log=(path=x)"), None).is_err());
    let off = validate(Method::ConnReconfigure, Some("statistics_log=(wait=0)"), None).unwrap();
    assert!(!StatsLogConfig::from_config(&off, Some(&open)).unwrap().runs());
}

#[test]
fn json_needs_statistics_and_brings_its_timestamp() {
    let c = open_config("statistics_log=(wait=1,json=true)").unwrap();
    assert!(c.json_output(true));
    assert!(!c.json_output(false));
    assert_eq!(c.timestamp_format(true), "%Y-%m-%dT%H:%M:%S.000Z");
    assert_eq!(c.timestamp_format(false), "%b %d %H:%M:%S");
    let custom = open_config("statistics_log=(wait=1,json=true,timestamp=\"%s\")").unwrap();
    assert_eq!(custom.timestamp_format(true), "%s");
}

#[test]
fn files_live_in_the_home() {
    let c = StatsLogConfig::default();
    assert_eq!(c.file_pattern(Path::new("WT_HOME")), Path::new("WT_HOME/./WiredTigerStat.%d.%H"));
    let abs = open_config("statistics_log=(path=/var/tmp)").unwrap();
    assert_eq!(abs.file_pattern(Path::new("WT_HOME")), Path::new("/var/tmp/WiredTigerStat.%d.%H"));
}

#[test]
fn strftime_expands_like_c() {
    // 2024-11-13 09:05:07 UTC.
    let t = 1_731_488_707;
    assert_eq!(expand(TIMESTAMP_DEFAULT, t), "Nov 13 09:05:07");
    assert_eq!(expand(TIMESTAMP_JSON_DEFAULT, t), "2024-11-13T09:05:07.000Z");
    assert_eq!(expand(FILE_NAME, t), "WiredTigerStat.13.09");
    assert_eq!(expand("", t), "");
    assert_eq!(expand("plain", t), "plain");
    assert_eq!(expand(&"%Y".repeat(200), t), "2024".repeat(200));
}

#[test]
fn text_lines_are_stamp_value_source_description() {
    let dumps = [
        conn_dump("WT_HOME", vec![(1185, 104_857_600), (1425, 7)]),
        table_dump("file:t.wt", vec![(2228, 1)]),
    ];
    assert_eq!(
        format_round(&dumps, "Nov 13 09:05:07", false),
        "Nov 13 09:05:07 104857600 WT_HOME cache: maximum bytes configured\n\
         Nov 13 09:05:07 7 WT_HOME cursor: open cursor count\n\
         Nov 13 09:05:07 1 file:t.wt cursor: open cursor count\n"
    );
}

#[test]
fn json_is_one_object_per_round() {
    let dumps = [
        conn_dump("WT_HOME", vec![(1010, 3), (1011, 4), (1425, 7)]),
        table_dump("file:a.wt", vec![(2228, 1), (2235, 2)]),
        table_dump("file:b.wt", vec![(2228, 0)]),
    ];
    let text = format_round(&dumps, "2024-11-13T09:05:07.000Z", true);
    assert_eq!(
        text,
        "{\"version\":\"WiredTiger 11.3.1: (November 13, 2024)\",\"localTime\":\"2024-11-13T09:05:07.000Z\",\
         \"wiredTiger\":{\"autocommit\":{\"retries for readonly operations\":3,\"retries for update operations\":4},\
         \"cursor\":{\"open cursor count\":7}},\
         \"wiredTigerTables\":{\"file:a.wt\":{\"cursor\":{\"open cursor count\":1,\"search calls\":2}},\
         \"file:b.wt\":{\"cursor\":{\"open cursor count\":0}}}}\n"
    );
    let j = parse_json(text.trim_end());
    assert_eq!(j.keys(), ["version", "localTime", "wiredTiger", "wiredTigerTables"]);
    assert_eq!(j.get("wiredTiger").get("cursor").get("open cursor count"), &J::Num(7));
    assert_eq!(j.get("wiredTigerTables").get("file:b.wt").get("cursor").get("open cursor count"), &J::Num(0));
    // Without data sources there is no wiredTigerTables; empty dumps stay valid JSON.
    let only = format_round(&[conn_dump("h\"x", vec![])], "t", true);
    assert_eq!(only, "{\"version\":\"WiredTiger 11.3.1: (November 13, 2024)\",\"localTime\":\"t\",\"wiredTiger\":{}}\n");
    parse_json(only.trim_end());
}

/// A source whose open cursor count is the round number, announcing each call.
fn counting_source(tx: mpsc::Sender<i64>) -> DumpSource {
    let round = AtomicI64::new(0);
    Box::new(move || {
        let n = round.fetch_add(1, Ordering::Relaxed) + 1;
        let _ = tx.send(n);
        Some(vec![conn_dump("home", vec![(1409, 2 * n), (1425, n)]), table_dump("file:t.wt", vec![(2228, n)])])
    })
}

/// A logger over [`counting_source`]: rounds every 5 ms, or every `wait` seconds with `fast`
/// false; the receiver hears each round's number.
fn counting_logger(config: &StatsLogConfig, home: &Path, fast: bool) -> (StatsLogger, mpsc::Receiver<i64>) {
    let (tx, rx) = mpsc::channel();
    let logger = if fast {
        StatsLogger::start_with_interval(config, home, true, Duration::from_millis(5), counting_source(tx))
    } else {
        StatsLogger::start(config, home, true, counting_source(tx))
    };
    (logger.unwrap(), rx)
}

#[test]
fn the_thread_appends_rounds_and_a_final_one() {
    let home = scratch("text");
    let config = open_config("statistics_log=(wait=1,on_close=true,timestamp=\"%Y\")").unwrap();
    let (logger, rx) = counting_logger(&config, &home, true);
    assert!(logger.is_running());
    for n in 1..=3 {
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), n);
    }
    logger.close().unwrap();
    let rounds = rx.try_iter().count() as i64 + 3;
    let lines = log_lines(&home);
    assert_eq!(lines.len() as i64, rounds * 3, "{lines:?}");
    for (i, chunk) in lines.chunks(3).enumerate() {
        let n = i as i64 + 1;
        let fields: Vec<Vec<&str>> = chunk.iter().map(|l| l.splitn(4, ' ').collect()).collect();
        for f in &fields {
            assert_eq!(f[0].len(), 4, "a %Y stamp");
            assert!(f[0].chars().all(|c| c.is_ascii_digit()));
        }
        assert_eq!(fields[0][1..], [&*(2 * n).to_string(), "home", "cursor: cursor search calls"]);
        assert_eq!(fields[1][1..], [&*n.to_string(), "home", "cursor: open cursor count"]);
        assert_eq!(fields[2][1..], [&*n.to_string(), "file:t.wt", "cursor: open cursor count"]);
    }
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn json_rounds_parse_back() {
    let home = scratch("json");
    std::fs::create_dir(home.join("stats")).unwrap();
    let config = open_config("statistics_log=(wait=1,json=true,path=stats)").unwrap();
    let (logger, rx) = counting_logger(&config, &home, true);
    for n in 1..=2 {
        assert_eq!(rx.recv_timeout(Duration::from_secs(10)).unwrap(), n);
    }
    logger.stop().unwrap();
    let lines = log_lines(&home.join("stats"));
    assert!(lines.len() >= 2);
    for (i, line) in lines.iter().enumerate() {
        let j = parse_json(line);
        let n = i as i64 + 1;
        assert_eq!(j.get("version"), &J::Str(VERSION_STRING.into()));
        let J::Str(stamp) = j.get("localTime") else { panic!() };
        assert!(stamp.ends_with(".000Z") && stamp.len() == 24, "{stamp}");
        assert_eq!(j.get("wiredTiger").get("cursor").get("cursor search calls"), &J::Num(2 * n));
        assert_eq!(j.get("wiredTigerTables").get("file:t.wt").get("cursor").get("open cursor count"), &J::Num(n));
    }
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn stopping_is_prompt_and_on_close_works_without_a_thread() {
    let home = scratch("prompt");
    let config = open_config("statistics_log=(wait=100000,on_close=true)").unwrap();
    let (logger, rx) = counting_logger(&config, &home, false);
    let begin = Instant::now();
    logger.close().unwrap();
    assert!(begin.elapsed() < Duration::from_secs(5));
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [1], "only the final round");
    assert_eq!(log_lines(&home).len(), 3);

    // wait=0: no thread, but on_close still writes at close.
    let config = open_config("statistics_log=(on_close=true)").unwrap();
    let (logger, rx) = counting_logger(&config, &home, false);
    assert!(!logger.is_running());
    logger.close().unwrap();
    assert_eq!(rx.try_iter().count(), 1);
    assert_eq!(log_lines(&home).len(), 6);

    // Dropped (a reconfiguration): no final round.
    let (logger, rx) = counting_logger(&config, &home, false);
    drop(logger);
    assert_eq!(rx.try_iter().count(), 0);
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn nothing_is_written_while_statistics_are_off() {
    let home = scratch("off");
    let config = open_config("statistics_log=(wait=1,on_close=true)").unwrap();
    let (tx, rx) = mpsc::channel();
    let source: DumpSource = Box::new(move || {
        let _ = tx.send(());
        None
    });
    let logger = StatsLogger::start_with_interval(&config, &home, false, Duration::from_millis(5), source).unwrap();
    rx.recv_timeout(Duration::from_secs(10)).unwrap();
    rx.recv_timeout(Duration::from_secs(10)).unwrap();
    logger.close().unwrap();
    assert!(log_lines(&home).is_empty());
    std::fs::remove_dir_all(&home).unwrap();
}

#[test]
fn a_missing_directory_ends_the_thread_with_its_error() {
    let home = scratch("missing");
    let config = open_config("statistics_log=(wait=1,path=nosuch)").unwrap();
    let (logger, rx) = counting_logger(&config, &home, true);
    rx.recv_timeout(Duration::from_secs(10)).unwrap();
    let e = logger.stop().unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
    std::fs::remove_dir_all(&home).unwrap();
}
