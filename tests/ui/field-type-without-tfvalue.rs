use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    timeout: std::time::Duration,
}

fn main() {}
