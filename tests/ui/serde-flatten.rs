use tfvalue::TfValue;

use serde::Serialize;

#[derive(Serialize, TfValue)]
struct Common {
    region: String,
}

#[derive(Serialize, TfValue)]
struct Server {
    #[serde(flatten)]
    common: Common,
}

fn main() {}
