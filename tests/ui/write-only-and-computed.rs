use tfvalue::TfValue;

#[derive(TfValue)]
struct Server {
    #[tfvalue(optional, write_only, computed)]
    password: Option<String>,
}

fn main() {}
