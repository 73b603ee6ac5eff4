use tfvalue::TfValue;

#[derive(TfValue)]
struct Network {
    subnet: String,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block, max_items = 1)]
    network: Option<Network>,
}

fn main() {}
