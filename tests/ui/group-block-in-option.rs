use tfvalue::TfValue;

#[derive(TfValue)]
struct Timeouts {
    create: Option<String>,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block = "group")]
    timeouts: Option<Timeouts>,
}

fn main() {}
