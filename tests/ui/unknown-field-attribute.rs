use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(requird)]
    name: String,
}

fn main() {}
