use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(sensitive = true)]
    password: String,
}

fn main() {}
