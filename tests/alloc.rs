//! Memory bounds: decoding allocates at most a constant multiple of the input size.
//!
//! A counting global allocator (a wrapper around `System`) tracks the bytes requested and
//! still live on the measuring thread, and their peak. Every decode below, of valid and
//! hostile input alike, must stay within
//!
//! ```text
//! peak <= 256 * input + 64 KiB        (for a type without optional attributes)
//! ```
//!
//! Why those numbers (measured here; `cargo test --test alloc -- --nocapture` prints the
//! table). The costliest inputs per byte are collections of the smallest containers:
//! - a `Value` is 32 bytes; a list of one-byte elements (`c0`, `90`, a fixint) costs one
//!   `Value` per byte, and its `Vec` may hold twice its length while it grows: 64x at worst
//!   (42x measured at 100,000 elements);
//! - a set adds the stable sort's scratch (one more `Value` per element below 250,000
//!   elements): 96x at worst (74x measured);
//! - a map or object is a `BTreeMap`, whose first node is 632 bytes for `String` keys and
//!   `Value`s, and the smallest map on the wire (`81 a0 c0`) is 3 bytes: about 243x at
//!   worst for a list or set of one-entry maps (225x measured at 100,000 maps).
//!
//! So 256x covers every shape, and the constant covers costs that do not grow with the
//! input: first capacities, the error value, and the scratch text when a number string is
//! checked against float64 (about 1 KiB). These are requested bytes; malloc's own rounding
//! (at least 32 bytes a block with glibc) comes on top.
//!
//! Optional attributes are the one way a byte of input can cost more: an object that
//! leaves them out (`80`, one byte) is decoded with each of them as null, as go-cty does,
//! so each missing optional attribute costs its entry (up to 128 bytes plus its name) per
//! object read. The bound for such a type grows with its optional attributes, see
//! `optional_attributes_cost_per_missing_attribute`. That factor comes from the schema,
//! never from the input: the markers of a type read from the input (inside `dynamic`) are
//! dropped before its value is read, see `dynamic_optional_markers_cannot_amplify`.
//!
//! Length prefixes are checked against the input before anything is allocated, so
//! `dd ffffffff` (an array header claiming four billion elements) costs what any five
//! bytes cost, and a length refinement of a billion is a number, not a capacity.
//!
//! Typed decoding allocates what the target type holds; for the shapes here that is within
//! the same bound. A type whose elements are large (`Vec<[u64; 100]>`) scales with its
//! element size, as with any serde format.
#![allow(unsafe_code)] // the counting allocator below; the library itself forbids unsafe

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Mutex;

use serde::de::IgnoredAny;
use serde::Deserialize;
use tfvalue::conformance::hex_decode;
use tfvalue::{Category, Type, Unknown, Value};

struct Counting;

static CURRENT: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    /// Only the measuring thread is counted (the test harness allocates on its own threads).
    static TRACKED: Cell<bool> = const { Cell::new(false) };
}

fn tracked() -> bool {
    TRACKED.try_with(Cell::get).unwrap_or(false)
}

fn add(n: isize) {
    let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call is forwarded to `System` unchanged; the wrapper only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() && tracked() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() && tracked() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        if tracked() {
            add(-(layout.size() as isize));
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() && tracked() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counters are global: one measurement at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `f` and returns its result with the peak of the bytes allocated while it ran and
/// still live at any moment (its result included, which is live at the end).
fn measure<R>(f: impl FnOnce() -> R) -> (R, usize) {
    CURRENT.store(0, Ordering::SeqCst);
    PEAK.store(0, Ordering::SeqCst);
    TRACKED.with(|t| t.set(true));
    let r = f();
    TRACKED.with(|t| t.set(false));
    let peak = PEAK.load(Ordering::SeqCst).max(0) as usize;
    (r, peak)
}

/// The bound asserted for every input: see the module docs for how it was chosen.
const PER_INPUT_BYTE: usize = 256;
const CONSTANT: usize = 64 * 1024;

fn bound(input_len: usize) -> usize {
    PER_INPUT_BYTE * input_len + CONSTANT
}

/// Measures decoding `input` and checks the bound; returns the peak.
#[track_caller]
fn check<R>(name: &str, input: &[u8], decode: impl FnOnce(&[u8]) -> R) -> (R, usize) {
    let (r, peak) = measure(|| decode(input));
    let ratio = peak as f64 / input.len().max(1) as f64;
    println!(
        "{name:<48} input {:>9} B  peak {:>10} B  ({ratio:.1}x)",
        input.len(),
        peak
    );
    assert!(
        peak <= bound(input.len()),
        "{name}: peak {peak} bytes for {} input bytes exceeds {PER_INPUT_BYTE} * input + {CONSTANT}",
        input.len()
    );
    (r, peak)
}

fn lock() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn ty(json: &str) -> Type {
    Type::from_json(json.as_bytes()).unwrap()
}

fn header(marker: u8, n: u32) -> Vec<u8> {
    let mut v = vec![marker];
    v.extend_from_slice(&n.to_be_bytes());
    v
}

#[test]
fn the_counter_counts() {
    let _g = lock();
    // Guards against a counter that reports nothing: a 1 MiB buffer is 1 MiB.
    let (v, peak) = measure(|| vec![0u8; 1 << 20]);
    assert!(peak >= 1 << 20, "{peak}");
    drop(v);
    let (_, peak) = measure(|| ());
    assert_eq!(peak, 0);
}

#[test]
fn vector_inputs_stay_within_the_bound() {
    let _g = lock();
    // A few vectors are types thousands of levels deep: building and dropping those
    // recurses, so this runs on a large stack.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(vector_inputs)
        .unwrap()
        .join()
        .unwrap();
}

fn vector_inputs() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/vectors/msgpack-decode.jsonl"
    ))
    .unwrap();
    let mut count = 0;
    let mut worst = (0.0f64, String::new());
    for line in text.lines() {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(hex) = case["msgpack"].as_str() else {
            continue;
        };
        let input = hex_decode(hex).unwrap();
        let t = match (&case["type"], case["type_text"].as_str()) {
            (serde_json::Value::Null, Some(text)) => {
                Type::from_json_with_depth(text.as_bytes(), 1 << 20)
            }
            (t, _) => Type::from_json_with_depth(t.to_string().as_bytes(), 1 << 20),
        };
        let Ok(t) = t else { continue };
        let name = case["name"].as_str().unwrap_or("?").to_owned();
        let (r, peak) = measure(|| Value::from_msgpack(&input, &t));
        drop(r);
        assert!(
            peak <= bound(input.len()),
            "{name}: peak {peak} bytes for {} input bytes",
            input.len()
        );
        let ratio = peak as f64 / input.len().max(1) as f64;
        if input.len() >= 64 && ratio > worst.0 {
            worst = (ratio, name.clone());
        }
        let (_, peak) = measure(|| tfvalue::msgpack::from_slice::<IgnoredAny>(&input));
        assert!(peak <= bound(input.len()), "{name} (IgnoredAny): {peak}");
        count += 1;
    }
    assert!(count > 200, "only {count} vectors read");
    println!(
        "{count} vector inputs within the bound; worst ratio among inputs of 64 bytes or more: {:.1}x ({})",
        worst.0, worst.1
    );
}

#[test]
fn length_prefix_bombs_allocate_nothing_for_the_claimed_length() {
    let _g = lock();
    let string_bomb = header(0xdb, u32::MAX);
    let bin_bomb = header(0xc6, u32::MAX);
    let mut ext_bomb = header(0xc9, u32::MAX);
    ext_bomb.extend_from_slice(&[0x0c, 0x81, 0x05, 0x01]);
    let cases: Vec<(&str, Vec<u8>, Type)> = vec![
        (
            "array dd ffffffff",
            header(0xdd, u32::MAX),
            ty(r#"["list","string"]"#),
        ),
        (
            "array dd ffffffff as set",
            header(0xdd, u32::MAX),
            ty(r#"["set","string"]"#),
        ),
        (
            "map df ffffffff",
            header(0xdf, u32::MAX),
            ty(r#"["map","string"]"#),
        ),
        (
            "map df ffffffff as object",
            header(0xdf, u32::MAX),
            ty(r#"["object",{"a":"string"}]"#),
        ),
        ("str db ffffffff", string_bomb.clone(), Type::String),
        ("bin c6 ffffffff", bin_bomb.clone(), Type::String),
        (
            "ext c9 ffffffff 0c ..",
            ext_bomb.clone(),
            ty(r#"["list","string"]"#),
        ),
        (
            "dynamic with bin c6 ffffffff type",
            [&[0x92][..], &bin_bomb].concat(),
            Type::Dynamic,
        ),
    ];
    for (name, input, t) in &cases {
        let (r, peak) = check(&format!("Value {name}"), input, |b| {
            Value::from_msgpack(b, t)
        });
        let err = r.unwrap_err();
        assert_eq!(err.category(), Category::Eof, "{name}: {err}");
        // far below the bound: nothing was sized by the prefix
        assert!(peak < 4096, "{name}: {peak}");
    }
    // The same through typed decoding.
    let (r, _) = check(
        "typed Vec<String> dd ffffffff",
        &header(0xdd, u32::MAX),
        |b| tfvalue::msgpack::from_slice::<Vec<String>>(b),
    );
    assert!(r.unwrap_err().is_eof());
    let (r, _) = check("typed BTreeMap df ffffffff", &header(0xdf, u32::MAX), |b| {
        tfvalue::msgpack::from_slice::<BTreeMap<String, String>>(b)
    });
    assert!(r.unwrap_err().is_eof());
    let (r, _) = check("typed String db ffffffff", &string_bomb, |b| {
        tfvalue::msgpack::from_slice::<String>(b)
    });
    assert!(r.unwrap_err().is_eof());
    let (r, _) = check("typed Unknown<Vec<String>> c9 ffffffff", &ext_bomb, |b| {
        tfvalue::msgpack::from_slice::<Unknown<Vec<String>>>(b)
    });
    assert!(r.unwrap_err().is_eof());

    // A long array whose claim exceeds what is there by one element: the elements that
    // exist are decoded (bounded by the input), then the input runs out.
    let mut input = header(0xdd, 100_001);
    input.extend(std::iter::repeat_n(0xc0, 100_000));
    let t = ty(r#"["list","string"]"#);
    let (r, _) = check("Value array claiming one more than present", &input, |b| {
        Value::from_msgpack(b, &t)
    });
    assert!(r.unwrap_err().is_eof());
}

#[test]
fn refinement_length_bombs_are_data_not_capacities() {
    let _g = lock();
    // not null, length 10^9..10^9
    let billion: &[u8] =
        b"\xc7\x0f\x0c\x83\x01\xc2\x05\xce\x3b\x9a\xca\x00\x06\xce\x3b\x9a\xca\x00";
    for json in [
        r#"["list","string"]"#,
        r#"["set","number"]"#,
        r#"["map","bool"]"#,
    ] {
        let t = ty(json);
        let (r, peak) = check(
            &format!("Value {json} unknown of length 10^9"),
            billion,
            |b| Value::from_msgpack(b, &t),
        );
        let v = r.unwrap();
        assert_eq!(v.as_unknown().unwrap().max_length(), Some(1_000_000_000));
        assert!(peak < 4096, "{json}: {peak}");
    }
    let (r, peak) = check("typed Unknown<Vec<String>> of length 10^9", billion, |b| {
        tfvalue::msgpack::from_slice::<Unknown<Vec<String>>>(b)
    });
    assert!(r.unwrap().is_unknown());
    assert!(peak < 4096, "{peak}");
    // u64::MAX as the upper bound: at least the largest int, which go-cty writes for "no bound"
    let max: &[u8] = b"\xc7\x0d\x0c\x82\x01\xc2\x06\xcf\xff\xff\xff\xff\xff\xff\xff\xff";
    let (r, _) = check("Value list unknown of length <= 2^64-1", max, |b| {
        Value::from_msgpack(b, &ty(r#"["list","string"]"#))
    });
    assert_eq!(r.unwrap().as_unknown().unwrap().max_length(), None);
    // Number bounds whose text would be enormous: 1e4095 is the longest accepted.
    let mut input = vec![0xc7, 0x00, 0x0c, 0x82, 0x01, 0xc2, 0x03, 0x92, 0xa6];
    input.extend_from_slice(b"1e4095\xc3");
    input[1] = (input.len() - 3) as u8;
    let (r, _) = check("Value number unknown >= 1e4095", &input, |b| {
        Value::from_msgpack(b, &Type::Number)
    });
    assert!(r.unwrap().is_unknown());
}

/// `n` one-byte elements in an array header.
fn array_of(n: u32, elem: &[u8]) -> Vec<u8> {
    let mut v = header(0xdd, n);
    for _ in 0..n {
        v.extend_from_slice(elem);
    }
    v
}

/// A map of `n` entries with distinct three-byte keys (`a2` + two bytes), in bytewise
/// order unless `reverse`.
fn map_of(n: u32, value: &[u8], reverse: bool) -> Vec<u8> {
    let mut v = header(0xdf, n);
    let keys: Vec<u32> = if reverse {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    };
    for k in keys {
        v.push(0xa2);
        v.push(b'!' + (k / 90) as u8);
        v.push(b'!' + (k % 90) as u8);
        v.extend_from_slice(value);
    }
    v
}

#[test]
fn wide_collections_of_tiny_elements_stay_within_the_bound() {
    let _g = lock();
    let n = 100_000;
    let cases: Vec<(&str, Vec<u8>, Type)> = vec![
        (
            "list(number) of fixints",
            array_of(n, &[0x01]),
            ty(r#"["list","number"]"#),
        ),
        (
            "list(string) of nulls",
            array_of(n, &[0xc0]),
            ty(r#"["list","string"]"#),
        ),
        (
            "list(list(string)) of empty lists",
            array_of(n, &[0x90]),
            ty(r#"["list",["list","string"]]"#),
        ),
        (
            "list(map(string)) of empty maps",
            array_of(n, &[0x80]),
            ty(r#"["list",["map","string"]]"#),
        ),
        (
            "list(object) of nulls",
            array_of(n, &[0xc0]),
            ty(r#"["list",["object",{"a":"string"}]]"#),
        ),
        (
            "list(string) of unknowns",
            array_of(n, &[0xd4, 0x00, 0x00]),
            ty(r#"["list","string"]"#),
        ),
        (
            "list(dynamic) of nulls",
            array_of(n, &[0xc0]),
            ty(r#"["list","dynamic"]"#),
        ),
        (
            "list(tuple) of empty tuples",
            array_of(n, &[0x90]),
            ty(r#"["list",["tuple",[]]]"#),
        ),
        (
            "set(number) of nulls",
            array_of(n, &[0xc0]),
            ty(r#"["set","number"]"#),
        ),
        (
            "set(number) of fixints",
            array_of(n, &[0x05]),
            ty(r#"["set","number"]"#),
        ),
        (
            "set(string) of unknowns",
            array_of(n, &[0xd4, 0x00, 0x00]),
            ty(r#"["set","string"]"#),
        ),
        (
            "list(map(string)) of one-entry maps",
            array_of(n, b"\x81\xa0\xc0"),
            ty(r#"["list",["map","string"]]"#),
        ),
        (
            "list(object) of one-attribute objects",
            array_of(n, b"\x81\xa1a\xc0"),
            ty(r#"["list",["object",{"a":"string"}]]"#),
        ),
        (
            "set(map(string)) of one-entry maps",
            array_of(n, b"\x81\xa0\xc0"),
            ty(r#"["set",["map","string"]]"#),
        ),
        (
            "list(list(string)) of one-element lists",
            array_of(n, b"\x91\xc0"),
            ty(r#"["list",["list","string"]]"#),
        ),
        (
            "map(bool) sorted",
            map_of(8000, &[0xc3], false),
            ty(r#"["map","bool"]"#),
        ),
        (
            "map(bool) reversed",
            map_of(8000, &[0xc3], true),
            ty(r#"["map","bool"]"#),
        ),
        (
            "map(string) of nulls",
            map_of(8000, &[0xc0], false),
            ty(r#"["map","string"]"#),
        ),
    ];
    for (name, input, t) in &cases {
        let (r, _) = check(&format!("Value {name}"), input, |b| {
            Value::from_msgpack(b, t)
        });
        r.unwrap_or_else(|e| panic!("{name}: {e}"));
    }

    let (r, _) = check(
        "typed Vec<Option<u8>> of nulls",
        &array_of(n, &[0xc0]),
        |b| tfvalue::msgpack::from_slice::<Vec<Option<u8>>>(b),
    );
    r.unwrap();
    let (r, _) = check(
        "typed Vec<Vec<u8>> of empty arrays",
        &array_of(n, &[0x90]),
        |b| tfvalue::msgpack::from_slice::<Vec<Vec<u8>>>(b),
    );
    r.unwrap();
    let (r, _) = check(
        "typed Vec<Unknown<String>> of unknowns",
        &array_of(n, &[0xd4, 0, 0]),
        |b| tfvalue::msgpack::from_slice::<Vec<Unknown<String>>>(b),
    );
    r.unwrap();
    let (r, _) = check(
        "typed Vec<BTreeMap<String, Option<String>>> one-entry maps",
        &array_of(n, b"\x81\xa0\xc0"),
        |b| tfvalue::msgpack::from_slice::<Vec<BTreeMap<String, Option<String>>>>(b),
    );
    r.unwrap();
    let (r, _) = check(
        "typed BTreeMap<String, bool> sorted",
        &map_of(8000, &[0xc3], false),
        |b| tfvalue::msgpack::from_slice::<BTreeMap<String, bool>>(b),
    );
    r.unwrap();
    let (r, _) = check(
        "typed BTreeMap<&str, bool> reversed",
        &map_of(8000, &[0xc3], true),
        |b| tfvalue::msgpack::from_slice::<BTreeMap<&str, bool>>(b).map(|m| m.len()),
    );
    assert_eq!(r.unwrap(), 8000);
}

/// `levels` nested one-element arrays around `inner`.
fn nested_arrays(levels: usize, inner: &[u8]) -> Vec<u8> {
    let mut v = vec![0x91; levels];
    v.extend_from_slice(inner);
    v
}

fn list_type(depth: usize) -> Type {
    let mut t = Type::String;
    for _ in 0..depth {
        t = Type::list(t);
    }
    t
}

/// Runs `f` on a thread with a 2 MiB stack, so unbounded recursion would crash the test.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn deep_nesting_within_the_limit_stays_within_the_bound() {
    let _g = lock();
    let input = nested_arrays(127, &[0xa1, b'x']);
    let t = list_type(127);
    let (r, _) = check("Value 127 nested lists", &input, |b| {
        Value::from_msgpack(b, &t)
    });
    r.unwrap();
    let mut input = Vec::new();
    for _ in 0..60 {
        input.extend_from_slice(b"\x92\xc4\x09\"dynamic\"");
    }
    input.extend_from_slice(b"\x92\xc4\x11[\"list\",\"string\"]\x91\xa1x");
    let (r, _) = check("Value 60 nested dynamic wrappers", &input, |b| {
        Value::from_msgpack(b, &Type::Dynamic)
    });
    r.unwrap();
}

#[test]
fn hundred_thousand_levels_are_a_depth_error_with_bounded_memory() {
    let _g = lock();
    // Value against a type as deep as the input (built and dropped on a large stack; the
    // decode runs on a small one, where recursion past the limit would overflow).
    let deep_type = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| list_type(100_000))
        .unwrap()
        .join()
        .unwrap();
    let (err, deep_type) = on_small_stack(move || {
        let input = nested_arrays(100_000, &[0xa1, b'x']);
        let (r, _) = check("Value 100000 nested lists", &input, |b| {
            Value::from_msgpack(b, &deep_type)
        });
        (r.unwrap_err(), deep_type)
    });
    assert_eq!(err.category(), Category::Limit, "{err}");
    assert!(
        err.to_string().contains("deeper than the limit of 128"),
        "{err}"
    );
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || drop(deep_type))
        .unwrap()
        .join()
        .unwrap();

    // Maps: 100,000 levels of {"a": {"a": ...}} as Value and as a typed recursive struct.
    let mut maps = Vec::new();
    for _ in 0..100_000 {
        maps.extend_from_slice(b"\x81\xa1a");
    }
    maps.push(0xc0);
    let maps2 = maps.clone();
    let err = on_small_stack(move || {
        // map(map(...)) 200 deep: the limit of 128 is reached before the type runs out
        let mut t2 = Type::String;
        for _ in 0..200 {
            t2 = Type::map(t2);
        }
        let (r, _) = check("Value 100000 nested maps", &maps2, |b| {
            Value::from_msgpack(b, &t2)
        });
        r.unwrap_err()
    });
    assert_eq!(err.category(), Category::Limit, "{err}");

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Node {
        a: Option<Box<Node>>,
    }
    let err = on_small_stack(move || {
        let (r, _) = check("typed 100000 nested structs", &maps, |b| {
            tfvalue::msgpack::from_slice::<Node>(b)
        });
        r.unwrap_err()
    });
    assert_eq!(err.category(), Category::Limit, "{err}");

    // Unknown<T> all the way down: every level is an array holding an unknown-or-array.
    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Deep(Vec<Unknown<Deep>>);
    let err = on_small_stack(|| {
        let input = nested_arrays(100_000, &[0xd4, 0x00, 0x00]);
        let (r, _) = check("typed 100000 nested Vec<Unknown<_>>", &input, |b| {
            tfvalue::msgpack::from_slice::<Deep>(b)
        });
        r.unwrap_err()
    });
    assert_eq!(err.category(), Category::Limit, "{err}");
}

#[test]
fn optional_attributes_cost_per_missing_attribute() {
    let _g = lock();
    // 40 optional attributes with names of 10 bytes; each object on the wire is `80`.
    let names: Vec<String> = (0..40).map(|i| format!("attribute{i}")).collect();
    let object =
        Type::object(names.iter().map(|n| (n.clone(), Type::String))).with_optional(names.iter());
    let t = Type::list(object);
    let n = 10_000;
    let input = array_of(n, &[0x80]);
    let (r, peak) = measure(|| Value::from_msgpack(&input, &t));
    let v = r.unwrap();
    assert_eq!(v[0]["attribute7"], Value::Null);
    let per_byte = peak / input.len();
    println!("Value list of {n} objects missing 40 optional attributes: {peak} B, {per_byte}x");
    // Beyond the 256x of other types, each missing optional attribute costs at most
    // 128 bytes plus its name per object (measured: one entry of the object's vector, 48
    // bytes; the name is the type's, shared).
    let per_object = 128 * 40 + names.iter().map(String::len).sum::<usize>();
    let entry = std::mem::size_of::<(tfvalue::Key, Value)>();
    assert!(
        peak >= 40 * entry * n as usize,
        "each null attribute is an entry: {peak}"
    );
    assert!(
        peak <= (PER_INPUT_BYTE + per_object) * input.len() + CONSTANT,
        "{peak}"
    );
}

#[test]
fn dynamic_optional_markers_cannot_amplify() {
    let _g = lock();
    // A dynamic type JSON marking 500 attributes optional, then 20,000 empty objects:
    // with the markers honoured this would be 10^7 null entries (over 600 MB).
    let names: Vec<String> = (0..500).map(|i| format!("\"a{i}\"")).collect();
    let attrs: Vec<String> = names.iter().map(|n| format!("{n}:\"string\"")).collect();
    let type_json = format!(
        r#"["list",["object",{{{}}},[{}]]]"#,
        attrs.join(","),
        names.join(",")
    );
    let mut input = vec![0x92, 0xc6];
    input.extend_from_slice(&(type_json.len() as u32).to_be_bytes());
    input.extend_from_slice(type_json.as_bytes());
    input.extend_from_slice(&array_of(20_000, &[0x80]));
    let (r, _) = check(
        "Value dynamic: optional markers, empty objects",
        &input,
        |b| Value::from_msgpack(b, &Type::Dynamic),
    );
    assert!(r.unwrap_err().to_string().contains("missing attribute"));
}
