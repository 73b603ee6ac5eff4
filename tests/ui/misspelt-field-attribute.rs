use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Server {
    #[tfvalue(computd)]
    id: Unknown<Option<String>>,
}

fn main() {}
