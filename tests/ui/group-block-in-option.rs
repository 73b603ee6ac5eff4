use tfvalue::TfValue;

#[derive(TfValue)]
struct Timeouts {
    #[tfvalue(optional)]
    create: Option<String>,
}

#[derive(TfValue)]
struct Server {
    #[tfvalue(block = "group")]
    timeouts: Option<Timeouts>,
}

fn main() {}
