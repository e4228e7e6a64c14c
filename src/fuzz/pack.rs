//! Format strings and packing: any format, any bytes to unpack, and the round trip.

use crate::pack::{self as packing, pack_into, packed_size, unpack, Arg, Format};

/// First byte: the length of the format (at most 63); then the format; the rest: bytes to
/// unpack with it.
///
/// Properties: parsing and unpacking never panic; an unpack that succeeds consumed at most
/// the bytes given; packing what it gave back (narrowed to the C argument types, as the C
/// layer hands them over) succeeds, `packed_size` and `pack_into` agree with `pack`, and
/// unpacking the result gives the same values again.
pub fn pack(data: &[u8]) {
    let Some((len, rest)) = super::split_first(data) else { return };
    let len = (len as usize % 64).min(rest.len());
    let Ok(text) = std::str::from_utf8(&rest[..len]) else { return };
    let bytes = &rest[len..];
    let Ok(fmt) = Format::parse(text) else { return };
    let _ = fmt.to_string();
    let mut args: Vec<Arg> = Vec::new();
    let Ok(used) = unpack(&fmt, bytes, &mut args) else { return };
    assert!(used <= bytes.len(), "unpack of {text:?} used {used} of {} bytes", bytes.len());
    assert_eq!(args.len(), fmt.cargs().len(), "unpack of {text:?}: one value per C argument");
    let args: Vec<Arg> = args.iter().zip(fmt.cargs()).map(|(a, &c)| a.narrow(c)).collect();
    let mut packed = Vec::new();
    packing::pack(&fmt, &args, &mut packed).unwrap_or_else(|e| panic!("repack of {text:?} {args:?}: {e}"));
    let size = packed_size(&fmt, &args).expect("packed_size after pack");
    assert_eq!(size, packed.len(), "packed_size of {text:?} {args:?}");
    let mut buf = vec![0u8; size];
    assert_eq!(pack_into(&fmt, &args, &mut buf).ok(), Some(size), "pack_into of {text:?}");
    assert_eq!(buf, packed, "pack_into and pack of {text:?} {args:?}");
    if size > 0 {
        assert!(pack_into(&fmt, &args, &mut buf[..size - 1]).is_err(), "pack_into of {text:?} one short");
    }
    let mut again: Vec<Arg> = Vec::new();
    let used2 = unpack(&fmt, &packed, &mut again).unwrap_or_else(|e| panic!("unpack of repacked {text:?} {packed:?}: {e}"));
    assert_eq!(used2, packed.len(), "unpack of repacked {text:?} {packed:?}");
    let again: Vec<Arg> = again.iter().zip(fmt.cargs()).map(|(a, &c)| a.narrow(c)).collect();
    assert_eq!(again, args, "round trip of {text:?} through {packed:?}");
}
