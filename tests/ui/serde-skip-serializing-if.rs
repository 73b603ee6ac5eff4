use tfvalue::TfValue;

use serde::Serialize;

#[derive(Serialize, TfValue)]
struct Server {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[tfvalue(optional)]
    name: Option<String>,
}

fn main() {}
