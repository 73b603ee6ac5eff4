use tfvalue::{TfValue, Unknown};

#[derive(TfValue)]
struct Server {
    #[tfvalue(optional, computed, default = ["a", "b"])]
    name: Unknown<Option<String>>,
    #[tfvalue(optional, computed, default = null)]
    zone: Unknown<Option<String>>,
    #[tfvalue(optional, computed, default = [1, some_function()])]
    ports: Unknown<Option<Vec<i64>>>,
}

fn main() {}
