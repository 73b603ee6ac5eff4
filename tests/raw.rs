//! Deferred decoding with `Raw`.

use serde::{Deserialize, Serialize};
use tfvalue::{Category, Raw, Type};

#[test]
fn raw_field_borrows_skips_and_writes_back_verbatim() {
    #[derive(Deserialize, Serialize)]
    struct Req<'a> {
        #[serde(borrow)]
        config: Raw<'a>,
        type_name: String,
    }
    // config = {"rules": [[1, "a"], [2, "b"]]}, type_name = "x"
    let bytes = b"\x82\xa6config\x81\xa5rules\x92\x92\x01\xa1a\x92\x02\xa1b\xa9type_name\xa1x";
    let req: Req = tfvalue::msgpack::from_slice(bytes).unwrap();
    assert_eq!(req.type_name, "x");
    assert!(bytes
        .as_ptr_range()
        .contains(&req.config.as_bytes().as_ptr()));
    assert_eq!(req.config.as_bytes(), &bytes[8..24]);
    let ty: Type =
        serde_json::from_str(r#"["object",{"rules":["list",["tuple",["number","string"]]]}]"#)
            .unwrap();
    let v = req.config.decode_value(&ty).unwrap();
    assert_eq!(v["rules"][1][1], "b");
    assert_eq!(tfvalue::msgpack::to_vec(&req).unwrap(), bytes);
    // typed decoding later
    #[derive(Deserialize, Debug, PartialEq)]
    struct Config {
        rules: Vec<(u8, String)>,
    }
    let c: Config = req.config.decode().unwrap();
    assert_eq!(c.rules, vec![(1, "a".into()), (2, "b".into())]);
    let owned = req.config.clone().into_owned();
    assert_eq!(owned, req.config);
}

#[test]
fn raw_checks_what_it_is_given() {
    assert!(Raw::from_msgpack(&b"\x92\x01"[..]).unwrap_err().is_eof());
    assert_eq!(
        Raw::from_msgpack(&b"\x01\x02"[..]).unwrap_err().category(),
        Category::Syntax
    );
    assert!(Raw::from_msgpack(vec![0x91, 0xc0]).is_ok());
    // capturing a value is still bounded in depth
    let mut deep = vec![0x91; 10_000];
    deep.push(0xc0);
    assert_eq!(
        tfvalue::msgpack::from_slice::<Raw>(&deep)
            .unwrap_err()
            .category(),
        Category::Limit
    );
    // depth is how deep, not how many: 1,000 lists side by side, in a list within
    // the limit, and one list more than the limit deep
    let mut wide = vec![0xdc, 0x03, 0xe8];
    wide.extend(std::iter::repeat_n(0x90, 1000));
    assert!(Raw::from_msgpack(wide.clone()).is_ok());
    assert_eq!(
        tfvalue::msgpack::from_slice::<Raw>(&wide)
            .unwrap()
            .as_bytes(),
        &wide[..]
    );
    let mut at_limit = vec![0x91; tfvalue::limits::DEFAULT_MAX_DEPTH - 1];
    at_limit.push(0x90);
    assert!(Raw::from_msgpack(at_limit.clone()).is_ok());
    at_limit.insert(0, 0x91);
    assert_eq!(
        Raw::from_msgpack(at_limit).unwrap_err().category(),
        Category::Limit
    );
    // and a truncated value is an error, not a short capture
    assert!(tfvalue::msgpack::from_slice::<Raw>(b"\x93\x01\x02")
        .unwrap_err()
        .is_eof());
    // a foreign deserializer cannot produce one
    assert!(serde_json::from_str::<Raw>("1").is_err());
}

#[test]
fn raw_json_fields() {
    #[derive(Deserialize, Serialize)]
    struct Req<'a> {
        #[serde(borrow)]
        config: Raw<'a>,
        type_name: String,
    }
    let text = br#"{"config":{"rules":[[1,"a"],[2,"b"]]},"type_name":"x"}"#;
    let req: Req = tfvalue::json::from_slice(text).unwrap();
    assert_eq!(req.config.format(), tfvalue::RawFormat::Json);
    assert_eq!(req.config.as_bytes(), br#"{"rules":[[1,"a"],[2,"b"]]}"#);
    assert!(text
        .as_ptr_range()
        .contains(&req.config.as_bytes().as_ptr()));
    let ty: Type =
        serde_json::from_str(r#"["object",{"rules":["list",["tuple",["number","string"]]]}]"#)
            .unwrap();
    assert_eq!(req.config.decode_value(&ty).unwrap()["rules"][0][1], "a");
    assert_eq!(tfvalue::json::to_vec(&req).unwrap(), text);
    // JSON bytes cannot be written into MessagePack as they are, nor the reverse
    let err = tfvalue::msgpack::to_vec(&req).unwrap_err();
    assert!(
        err.to_string().contains("decode it with its type first"),
        "{err}"
    );
    let mp = Raw::from_msgpack(&b"\x01"[..]).unwrap();
    assert!(tfvalue::json::to_vec(&mp).is_err());
    assert!(Raw::from_json(&b"{\"a\":"[..]).is_err());
    assert!(Raw::from_json(&b" [1, 2] "[..]).is_ok());
}
