//! Named columns: a table's key and value formats split into one format per column, rows of
//! owned column values, and the formats of column subsets (projections, column groups, index
//! keys).

use crate::error::{Error, Result};
use crate::pack::{self, Arg, Format};

/// One column's value, owned (a row read from one store and written to others).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A signed integer column.
    Int(i64),
    /// An unsigned integer column.
    Uint(u64),
    /// A string, fixed-size string or item column.
    Bytes(Vec<u8>),
}

impl Value {
    fn arg(&self) -> Arg<'_> {
        match self {
            Value::Int(v) => Arg::Int(*v),
            Value::Uint(v) => Arg::Uint(*v),
            Value::Bytes(b) => Arg::Bytes(b),
        }
    }

    fn of(arg: Arg<'_>) -> Value {
        match arg {
            Arg::Int(v) => Value::Int(v),
            Arg::Uint(v) => Value::Uint(v),
            Arg::Bytes(b) => Value::Bytes(b.to_vec()),
        }
    }

    /// The value a column not written holds (a projection's write leaves the others so).
    fn empty_for(format: &str) -> Value {
        match format.chars().last() {
            Some('b' | 'h' | 'i' | 'l' | 'q') => Value::Int(0),
            Some('S' | 's' | 'u' | 'U') => Value::Bytes(Vec::new()),
            _ => Value::Uint(0),
        }
    }
}

/// Unpacks `bytes` of `format` into one value per column.
pub fn unpack_values(format: &Format, bytes: &[u8]) -> Result<Vec<Value>> {
    let mut args: Vec<Arg<'_>> = Vec::with_capacity(format.cargs().len());
    pack::unpack(format, bytes, &mut args)?;
    Ok(args.into_iter().map(Value::of).collect())
}

/// Packs `values` (one per column of `format`) into `out`.
pub fn pack_values<'v>(format: &Format, values: impl Iterator<Item = &'v Value>, out: &mut Vec<u8>) -> Result<()> {
    let args: Vec<Arg<'_>> = values.map(Value::arg).collect();
    pack::pack(format, &args, out)?;
    Ok(())
}

/// Splits a format into one format per C argument (column): `5sHQ` is `5s`, `H`, `Q`; `3i` is
/// three `i` columns; padding (`x`) takes no column.
pub fn column_formats(format: &Format) -> Vec<String> {
    let mut out = Vec::new();
    for field in format.fields() {
        let n = field.arg_count();
        if n == 0 {
            continue;
        }
        let repeated = n > 1;
        if repeated {
            out.extend((0..n).map(|_| field.ch().to_string()));
        } else {
            match field.count() {
                Some(count) => out.push(format!("{count}{}", field.ch())),
                None => out.push(field.ch().to_string()),
            }
        }
    }
    out
}

/// A table's columns: key columns first, then value columns, each with its name (when the
/// table named them) and its format.
#[derive(Clone, Debug)]
pub struct Columns {
    names: Vec<String>,
    formats: Vec<String>,
    key_count: usize,
}

impl Columns {
    /// The columns of a table with these formats and `columns=` names (empty: unnamed).
    pub fn new(key_format: &Format, value_format: &Format, names: &[String]) -> Columns {
        let key = column_formats(key_format);
        let key_count = key.len();
        let mut formats = key;
        formats.extend(column_formats(value_format));
        Columns { names: names.to_vec(), formats, key_count }
    }

    /// Whether the table named its columns.
    pub fn named(&self) -> bool {
        !self.names.is_empty()
    }

    /// The name of the column at `at`, if the table named it.
    pub fn name(&self, at: usize) -> Option<&str> {
        self.names.get(at).map(String::as_str)
    }

    /// Number of key columns.
    pub fn key_count(&self) -> usize {
        self.key_count
    }

    /// Number of columns, key and value.
    pub fn len(&self) -> usize {
        self.formats.len()
    }

    /// Whether there are no columns at all.
    pub fn is_empty(&self) -> bool {
        self.formats.is_empty()
    }

    /// The value columns' positions.
    pub fn value_columns(&self) -> Vec<usize> {
        (self.key_count..self.len()).collect()
    }

    /// The positions of the columns `names` lists, in that order ("Column 'X' not found").
    pub fn find<S: AsRef<str>>(&self, names: &[S]) -> Result<Vec<usize>> {
        names
            .iter()
            .map(|name| {
                let name = name.as_ref();
                self.names
                    .iter()
                    .position(|n| n == name)
                    .filter(|&at| at < self.formats.len())
                    .ok_or_else(|| Error::invalid(format!("Column '{name}' not found")))
            })
            .collect()
    }

    /// The format of the columns at `positions`, in that order.
    pub fn format_of(&self, positions: &[usize]) -> Result<Format> {
        let text: String = positions.iter().map(|&p| self.formats[p].as_str()).collect();
        Ok(Format::parse(&text)?)
    }

    /// A row with every column empty (zero, empty string).
    pub fn empty_row(&self) -> Vec<Value> {
        self.formats.iter().map(|f| Value::empty_for(f)).collect()
    }
}

/// The column names of a projection: `a,b` of `table:T(a,b)` (an empty list: no columns).
pub fn split_list(list: &str) -> Vec<&str> {
    list.split(',').map(str::trim).filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_split_into_columns() {
        let f = |s: &str| column_formats(&Format::parse(s).unwrap());
        assert_eq!(f("5sHQ"), ["5s", "H", "Q"]);
        assert_eq!(f("3iS"), ["i", "i", "i", "S"]);
        assert_eq!(f("r"), ["r"]);
        assert_eq!(f("Sxu"), ["S", "u"]);
        assert_eq!(f("10S"), ["10S"]);
    }

    #[test]
    fn columns_are_found_by_name_and_rows_round_trip() {
        let (k, v) = (Format::parse("r").unwrap(), Format::parse("5sHQ").unwrap());
        let names: Vec<String> = ["id", "country", "year", "pop"].iter().map(|s| s.to_string()).collect();
        let cols = Columns::new(&k, &v, &names);
        assert_eq!(cols.find(&["year", "id"]).unwrap(), [2, 0]);
        let e = cols.find(&["nosuch"]).unwrap_err();
        assert_eq!(e.to_string(), "Column 'nosuch' not found: Invalid argument");
        let fmt = cols.format_of(&[1, 2]).unwrap();
        assert_eq!(fmt.as_str(), "5sH");
        let mut out = Vec::new();
        let row = [Value::Bytes(b"AU".to_vec()), Value::Uint(1900)];
        pack_values(&fmt, row.iter(), &mut out).unwrap();
        let back = unpack_values(&fmt, &out).unwrap();
        assert_eq!(back[1], Value::Uint(1900));
    }
}
