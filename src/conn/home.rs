//! One connection per home in a process: the reference refuses a second `wiredtiger_open` of
//! a home that is open (in-memory databases included) with `EBUSY`.

use parking_lot::Mutex;

use crate::error::{Error, Kind, Result};

/// Homes with an open connection in this process (touched only by open and close).
static OPEN_HOMES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// A connection's claim on its home, released on drop.
pub struct HomeClaim {
    home: String,
}

impl HomeClaim {
    /// Claims `home` (as given; "." for NULL), or `EBUSY` if another connection holds it.
    pub fn new(home: &str) -> Result<HomeClaim> {
        let mut homes = OPEN_HOMES.lock();
        if homes.iter().any(|h| h == home) {
            return Err(Error::new(
                Kind::Busy,
                "WiredTiger database is already being managed by another thread in this process",
            ));
        }
        homes.push(home.to_string());
        Ok(HomeClaim { home: home.to_string() })
    }
}

impl Drop for HomeClaim {
    fn drop(&mut self) {
        let mut homes = OPEN_HOMES.lock();
        if let Some(i) = homes.iter().position(|h| *h == self.home) {
            homes.swap_remove(i);
        }
    }
}
