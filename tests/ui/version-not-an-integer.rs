use tfvalue::TfValue;

#[derive(TfValue)]
#[tfvalue(version = "1")]
struct Server {
    name: String,
}

fn main() {}
