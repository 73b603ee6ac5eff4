use tfvalue::TfValue;

use serde::Serialize;

#[derive(Serialize, TfValue)]
struct Server {
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<String>,
}

fn main() {}
