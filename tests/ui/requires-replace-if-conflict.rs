use tfvalue::{TfValue, Unknown, Value};

fn always(_: &Value, _: &Value, _: &Value) -> bool {
    true
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(optional, requires_replace, requires_replace_if_configured)]
    zone: Unknown<Option<String>>,
    #[tfvalue(requires_replace_if = "always")]
    size: Unknown<i64>,
    #[tfvalue(requires_replace_if = always)]
    name: Unknown<String>,
}

fn main() {}
