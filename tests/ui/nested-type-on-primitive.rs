use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(nested_type)]
    name: String,
}

fn main() {}
