use tfvalue::TfValue;

use serde::Serialize;

#[derive(Serialize, TfValue)]
#[serde(rename_all = "camelCase")]
struct Server {
    instance_type: String,
}

fn main() {}
