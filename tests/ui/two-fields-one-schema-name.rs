use serde::Serialize;
use tfvalue::TfValue;

#[derive(TfValue, Serialize)]
struct Server {
    name: String,
    #[serde(rename = "name")]
    title: String,
}

fn main() {}
