use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Rule {
    #[tfvalue(at_lest = 1)]
    port: Unknown<i64>,
    #[tfvalue(each(patern = "^a"))]
    names: Unknown<Vec<String>>,
    #[tfvalue(validate_with = "check")]
    id: Unknown<String>,
}

fn main() {}
