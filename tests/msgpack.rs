//! The serde data model on the wire: one row per kind of Rust value, checked through every
//! entry point (to_vec, to_writer, from_slice, from_reader, and Value against a type).
//! The expected bytes come from the MessagePack spec and the wire rules in
//! tests/vectors/README.md (smallest int, unsigned forms for non-negative numbers,
//! integral floats as ints, NFC strings, sorted attributes).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Debug;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tfvalue::conformance::{hex_decode, hex_encode};
use tfvalue::{Category, Dynamic, Number, Refinements, Type, Unknown, Value};

#[track_caller]
fn row<T>(value: T, hex: &str, ty: &Type)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let bytes = hex_decode(hex).unwrap();
    assert_eq!(
        hex_encode(&tfvalue::msgpack::to_vec(&value).unwrap()),
        hex,
        "to_vec {value:?}"
    );
    let mut w = Vec::new();
    tfvalue::msgpack::to_writer(&mut w, &value).unwrap();
    assert_eq!(w, bytes, "to_writer {value:?}");
    assert_eq!(
        tfvalue::msgpack::from_slice::<T>(&bytes).unwrap(),
        value,
        "from_slice {hex}"
    );
    assert_eq!(
        tfvalue::msgpack::from_reader::<_, T>(&bytes[..]).unwrap(),
        value,
        "from_reader {hex}"
    );
    let v = Value::from_msgpack(&bytes, ty).unwrap_or_else(|e| panic!("Value {hex} as {ty}: {e}"));
    assert_eq!(
        hex_encode(&v.to_msgpack(ty).unwrap()),
        hex,
        "Value round trip {hex} as {ty}"
    );
}

#[test]
fn primitives() {
    row(true, "c3", &Type::Bool);
    row(false, "c2", &Type::Bool);
    row(0u8, "00", &Type::Number);
    row(127i8, "7f", &Type::Number);
    row(-1i8, "ff", &Type::Number);
    row(-32i16, "e0", &Type::Number);
    row(-33i16, "d0df", &Type::Number);
    row(128u16, "cc80", &Type::Number);
    row(256u16, "cd0100", &Type::Number);
    row(65536u32, "ce00010000", &Type::Number);
    row(-2147483649i64, "d3ffffffff7fffffff", &Type::Number);
    row(u32::MAX as u64 + 1, "cf0000000100000000", &Type::Number);
    row(i64::MIN, "d38000000000000000", &Type::Number);
    // beyond i64: decimal text, as go-cty writes it
    row(
        u64::MAX,
        "b43138343436373434303733373039353531363135",
        &Type::Number,
    );
    row(
        i128::MIN,
        "d9282d313730313431313833343630343639323331373331363837333033373135383834313035373238",
        &Type::Number,
    );
    row(1.5f64, "cb3ff8000000000000", &Type::Number);
    row(0.5f32, "cb3fe0000000000000", &Type::Number);
    row("hi".to_string(), "a26869", &Type::String);
    row('é', "a2c3a9", &Type::String);
    row(Some(5u8), "05", &Type::Number);
    row(None::<u8>, "c0", &Type::Number);
    row(Number::from(7), "07", &Type::Number);
    row("0.1".parse::<Number>().unwrap(), "a3302e31", &Type::Number);
}

#[test]
fn integral_floats_are_written_as_ints() {
    assert_eq!(tfvalue::msgpack::to_vec(&3.0f64).unwrap(), [0x03]);
    assert_eq!(tfvalue::msgpack::to_vec(&-0.0f64).unwrap(), [0x00]);
    assert_eq!(tfvalue::msgpack::to_vec(&-40.0f32).unwrap(), [0xd0, 0xd8]);
    // and a float field reads any number encoding
    assert_eq!(tfvalue::msgpack::from_slice::<f64>(b"\x03").unwrap(), 3.0);
    assert_eq!(
        tfvalue::msgpack::from_slice::<f64>(b"\xa30.1").unwrap(),
        0.1
    );
    assert_eq!(
        tfvalue::msgpack::from_slice::<f32>(b"\xca\x3f\xc0\x00\x00").unwrap(),
        1.5
    );
}

#[test]
fn nan_is_not_a_number() {
    let err = tfvalue::msgpack::to_vec(&f64::NAN).unwrap_err();
    assert!(err.to_string().contains("NaN"), "{err}");
    let err =
        tfvalue::msgpack::from_slice::<f64>(b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x01").unwrap_err();
    assert!(err.to_string().contains("NaN"), "{err}");
}

#[test]
fn integers_are_range_checked_from_any_encoding() {
    assert_eq!(tfvalue::msgpack::from_slice::<u8>(b"\xa3255").unwrap(), 255);
    assert_eq!(
        tfvalue::msgpack::from_slice::<i32>(b"\xcb\xc0\x08\x00\x00\x00\x00\x00\x00").unwrap(),
        -3
    );
    assert_eq!(
        tfvalue::msgpack::from_slice::<u128>(
            b"\xb4\x31\x38\x34\x34\x36\x37\x34\x34\x30\x37\x33\x37\x30\x39\x35\x35\x31\x36\x31\x36"
        )
        .unwrap(),
        1u128 << 64
    );
    let err = tfvalue::msgpack::from_slice::<u8>(b"\xcd\x01\x00").unwrap_err();
    assert!(err.to_string().contains("256"), "{err}");
    let err =
        tfvalue::msgpack::from_slice::<i64>(b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00").unwrap_err();
    assert!(err.to_string().contains("expected i64"), "{err}");
    let err = tfvalue::msgpack::from_slice::<u64>(b"\xa3abc").unwrap_err();
    assert!(err.to_string().contains("invalid number"), "{err}");
    let err = tfvalue::msgpack::from_slice::<u32>(b"\xc3").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: bool, expected u32 (msgpack offset 0)"
    );
}

#[test]
fn strings_borrow_and_normalize() {
    #[derive(Deserialize)]
    struct Borrowed<'a> {
        #[serde(borrow)]
        a: &'a str,
        #[serde(borrow)]
        b: Cow<'a, str>,
    }
    let bytes = b"\x82\xa1a\xa3xyz\xa1b\xa2uv";
    let v: Borrowed = tfvalue::msgpack::from_slice(bytes).unwrap();
    assert_eq!(v.a, "xyz");
    // the &str points into the input: no copy
    assert!(bytes.as_ptr_range().contains(&v.a.as_ptr()));
    assert!(matches!(v.b, Cow::Borrowed("uv")));
    // bin is a string too, if it is UTF-8
    assert_eq!(
        tfvalue::msgpack::from_slice::<String>(b"\xc4\x02hi").unwrap(),
        "hi"
    );
    assert!(tfvalue::msgpack::from_slice::<String>(b"\xa2\xc3\x28").is_err());
    // decoding keeps the bytes; encoding writes NFC
    let decomposed = "cafe\u{301}";
    assert_eq!(
        tfvalue::msgpack::from_slice::<String>(b"\xa6cafe\xcc\x81").unwrap(),
        decomposed
    );
    assert_eq!(
        tfvalue::msgpack::to_vec(decomposed).unwrap(),
        b"\xa5caf\xc3\xa9"
    );
}

#[test]
fn sequences_tuples_and_sets() {
    row(
        vec!["a".to_string(), "b".to_string()],
        "92a161a162",
        &Type::list(Type::String),
    );
    row(Vec::<u8>::new(), "90", &Type::list(Type::Number));
    row(
        ("x".to_string(), 1u8, true),
        "93a17801c3",
        &Type::tuple([Type::String, Type::Number, Type::Bool]),
    );
    row(
        BTreeSet::from([3u8, 1, 2]),
        "93010203",
        &Type::set(Type::Number),
    );

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Pair(String, u8);
    row(
        Pair("a".into(), 2),
        "92a16102",
        &Type::tuple([Type::String, Type::Number]),
    );

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Wrapper(Vec<bool>);
    row(Wrapper(vec![true]), "91c3", &Type::list(Type::Bool));

    // a tuple of the wrong length is an error, not a silent truncation
    let err = tfvalue::msgpack::from_slice::<(u8, u8)>(b"\x93\x01\x02\x03").unwrap_err();
    assert!(err.to_string().contains("invalid length"), "{err}");
}

#[test]
fn maps_are_written_sorted_and_read_without_duplicates() {
    let m = BTreeMap::from([("b".to_string(), 1u8), ("a".to_string(), 2u8)]);
    row(m, "82a16102a16201", &Type::map(Type::Number));
    // a HashMap comes out in the same canonical order, whatever its iteration order
    let h: HashMap<String, u8> = (0..20).map(|i| (format!("k{i:02}"), i)).collect();
    let bytes = tfvalue::msgpack::to_vec(&h).unwrap();
    let sorted: BTreeMap<String, u8> = h.into_iter().collect();
    assert_eq!(bytes, tfvalue::msgpack::to_vec(&sorted).unwrap());
    // duplicates are rejected, in order and out of order
    let err = tfvalue::msgpack::from_slice::<BTreeMap<String, u8>>(b"\x82\xa1a\x01\xa1a\x02")
        .unwrap_err();
    assert!(err.to_string().contains("duplicate key `a`"), "{err}");
    let err =
        tfvalue::msgpack::from_slice::<HashMap<String, u8>>(b"\x83\xa1b\x01\xa1a\x02\xa1b\x03")
            .unwrap_err();
    assert!(err.to_string().contains("duplicate key `b`"), "{err}");
    // keys equal after NFC collide when encoding
    let m = BTreeMap::from([
        ("caf\u{e9}".to_string(), 1u8),
        ("cafe\u{301}".to_string(), 2u8),
    ]);
    assert!(tfvalue::msgpack::to_vec(&m)
        .unwrap_err()
        .to_string()
        .contains("duplicate key"));
    // non-string keys cannot be written; integer keys are written as their text
    assert!(tfvalue::msgpack::to_vec(&BTreeMap::from([(true, 1u8)])).is_err());
    assert_eq!(
        tfvalue::msgpack::to_vec(&BTreeMap::from([(7u8, 1u8)])).unwrap(),
        b"\x81\xa17\x01"
    );
}

#[test]
fn structs_are_objects_with_sorted_attributes() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Rule {
        port: u16,
        cidr: String,
        enabled: Option<bool>,
    }
    let ty = Type::object([
        ("cidr", Type::String),
        ("enabled", Type::Bool),
        ("port", Type::Number),
    ]);
    row(
        Rule {
            port: 443,
            cidr: "10.0.0.0/8".into(),
            enabled: None,
        },
        "83a463696472aa31302e302e302e302f38a7656e61626c6564c0a4706f7274cd01bb",
        &ty,
    );
    // attributes in any order decode; a missing Option is None (serde's rule)
    let r: Rule = tfvalue::msgpack::from_slice(b"\x82\xa4port\x05\xa4cidr\xa1x").unwrap();
    assert_eq!(
        r,
        Rule {
            port: 5,
            cidr: "x".into(),
            enabled: None
        }
    );
}

#[test]
fn unit_and_enums() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    enum Mode {
        #[serde(rename = "fast")]
        Fast,
        Slow,
    }
    row(Mode::Fast, "a466617374", &Type::String);
    row(Mode::Slow, "a4536c6f77", &Type::String);
    row((), "c0", &Type::String);

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Marker;
    row(Marker, "c0", &Type::Bool);

    #[derive(Serialize)]
    enum WithData {
        A(u8),
    }
    let err = tfvalue::msgpack::to_vec(&WithData::A(1)).unwrap_err();
    assert!(err.to_string().contains("WithData::A"), "{err}");
    let err = tfvalue::msgpack::from_slice::<Mode>(b"\xa4nope").unwrap_err();
    assert!(err.to_string().contains("unknown variant"), "{err}");
}

#[test]
fn unknowns_and_refinements() {
    row(Unknown::<String>::unknown(), "d40000", &Type::String);
    row(Unknown::Known("x".to_string()), "a178", &Type::String);
    row(
        Unknown::<Option<String>>::unknown()
            .not_null()
            .with_prefix("ab"),
        "c7070c8201c202a26162",
        &Type::String,
    );
    row(
        Unknown::<u16>::unknown()
            .with_lower_bound(1, true)
            .with_upper_bound(65535, true),
        "c70b0c82039201c30492cdffffc3",
        &Type::Number,
    );
    row(
        Unknown::<Vec<String>>::unknown().with_min_length(1),
        "c7030c810501",
        &Type::list(Type::String),
    );
    // a known null through Unknown<Option<T>>
    row(Unknown::Known(None::<String>), "c0", &Type::String);
    // an unknown refined "definitely null" is the known null
    let v: Unknown<Option<String>> =
        tfvalue::msgpack::from_slice(b"\xc7\x03\x0c\x81\x01\xc3").unwrap();
    assert_eq!(v, Unknown::Known(None));
    // an unknown where the type has no Unknown is an error that says what to do
    let err = tfvalue::msgpack::from_slice::<String>(b"\xd4\x00\x00").unwrap_err();
    assert!(err.to_string().contains("use tfvalue::Unknown<T>"), "{err}");
    // contradictory refinements cannot be encoded
    let bad = Unknown::<u8>::unknown()
        .with_lower_bound(5, true)
        .with_upper_bound(1, true);
    assert_eq!(
        tfvalue::msgpack::to_vec(&bad).unwrap_err().category(),
        Category::Data
    );
    // a refinement builder exists only where it applies: this does not compile
    // Unknown::<u8>::unknown().with_prefix("x");
    assert!(Refinements::new().not_null().is_not_null());
}

#[test]
fn dynamic_fields() {
    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Out {
        value: Dynamic,
    }
    let ty = Type::object([("value", Type::Dynamic)]);
    row(
        Out {
            value: Dynamic::new(Type::Number, Value::from(42)),
        },
        "81a576616c756592c408226e756d626572222a",
        &ty,
    );
    row(
        Out {
            value: Dynamic::null(),
        },
        "81a576616c7565c0",
        &ty,
    );
    row(
        Out {
            value: Dynamic::new(Type::Dynamic, Value::Unknown(Refinements::new())),
        },
        "81a576616c7565d40000",
        &ty,
    );
    // a value that does not conform to its own type is not written
    let bad = Out {
        value: Dynamic::new(Type::Number, Value::from("x")),
    };
    assert!(tfvalue::msgpack::to_vec(&bad).is_err());
}

#[test]
fn errors_name_the_path() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Device {
        volume_size: u32,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Instance {
        ebs_block_device: Vec<Device>,
    }
    let input = b"\x81\xb0ebs_block_device\x93\x81\xabvolume_size\x01\x81\xabvolume_size\x02\x81\xabvolume_size\xa2no";
    let err = tfvalue::msgpack::from_slice::<Instance>(input).unwrap_err();
    assert_eq!(err.path().to_string(), "ebs_block_device[2].volume_size");
    assert!(
        err.to_string().starts_with(
            "invalid number \"no\" at ebs_block_device[2].volume_size (msgpack offset"
        ),
        "{err}"
    );

    let ty: Type = serde_json::from_str(r#"["object",{"tags":["map","string"]}]"#).unwrap();
    let err = Value::from_msgpack(b"\x81\xa4tags\x81\xa3env\xc3", &ty).unwrap_err();
    assert_eq!(err.path().to_string(), "tags[\"env\"]");
    assert_eq!(err.message(), "invalid type: bool, expected a string");
}

#[test]
fn undeclared_attributes_are_errors_in_both_formats_unless_ignored() {
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Inner {
        a: u8,
    }
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Outer {
        inner: Vec<Inner>,
    }
    let mp = b"\x81\xa5inner\x91\x82\xa1a\x01\xa1b\x92\x01\x02";
    // Both formats: the message names the attribute, the path is the object's, and the
    // position is the attribute's name.
    let err = tfvalue::msgpack::from_slice::<Outer>(mp).unwrap_err();
    assert_eq!(err.path().to_string(), "inner[0]");
    assert_eq!(
        err.message(),
        "unsupported attribute `b`, expected one of `a`"
    );
    assert_eq!(err.offset(), Some(12));
    let json = br#"{"inner":[{"a":1,"b":[1,2]}]}"#;
    let err = tfvalue::json::from_slice::<Outer>(json).unwrap_err();
    assert_eq!(err.path().to_string(), "inner[0]");
    assert_eq!(
        err.message(),
        "unsupported attribute `b`, expected one of `a`"
    );
    assert_eq!(err.offset(), Some(17));
    let mut de = tfvalue::msgpack::Deserializer::from_slice(mp).ignore_undeclared_attributes(true);
    assert_eq!(Outer::deserialize(&mut de).unwrap().inner[0].a, 1);
    let mut de = tfvalue::json::Deserializer::from_slice(json).ignore_undeclared_attributes(true);
    assert_eq!(Outer::deserialize(&mut de).unwrap().inner[0].a, 1);
    // a field that serde skips on purpose is declared as ignored
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Skips {
        a: u8,
        #[serde(skip)]
        b: u8,
    }
    assert!(tfvalue::msgpack::from_slice::<Skips>(b"\x81\xa1a\x01").is_ok());
}

#[test]
fn floats_out_of_range_are_errors_not_infinities() {
    let err = tfvalue::msgpack::from_slice::<f32>(b"\xa41e40").unwrap_err();
    assert_eq!(err.category(), Category::Limit, "{err}");
    assert!(err.to_string().contains("out of range for f32"), "{err}");
    let err =
        tfvalue::msgpack::from_slice::<f32>(b"\xcb\x7e\x37\xe4\x3c\x88\x00\x75\x9c").unwrap_err();
    assert!(err.to_string().contains("f32"), "{err}");
    let err = tfvalue::msgpack::from_slice::<f64>(b"\xa51e400").unwrap_err();
    assert_eq!(err.category(), Category::Limit, "{err}");
    // a long number is shortened in the message
    assert!(err.to_string().len() < 120, "{err}");
    // infinity itself is a number an f32 holds
    assert_eq!(
        tfvalue::msgpack::from_slice::<f32>(b"\xa3Inf").unwrap(),
        f32::INFINITY
    );
    assert_eq!(
        tfvalue::msgpack::from_slice::<f32>(b"\xcb\x3f\xf8\x00\x00\x00\x00\x00\x00").unwrap(),
        1.5
    );
}
