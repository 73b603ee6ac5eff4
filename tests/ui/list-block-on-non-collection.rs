use tfvalue::TfValue;

#[derive(TfValue)]
struct Network {
    subnet: String,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block = "list")]
    network: Network,
}

fn main() {}
