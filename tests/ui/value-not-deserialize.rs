// A Value cannot be deserialized without a type: the error says what reads one.
use serde::Deserialize;
use tfvalue::Value;

#[derive(Deserialize)]
struct Model {
    name: String,
    extra: Value,
}

fn main() {
    let _: Value = serde_json::from_str("1").unwrap();
    let _ = std::mem::size_of::<Model>();
}
