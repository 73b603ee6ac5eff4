use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(description = 5)]
    name: String,
}

fn main() {}
