//! `rsa_keygen N BITS`: N RSA keys made as Sprig's functions make them, one "nanoseconds"
//! line per key. The Rust side of `bench/rsa-keygen.sh` (its peer: Go's `rsa.GenerateKey`).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(n), Some(bits)) = (
        args.get(1).and_then(|a| a.parse::<usize>().ok()),
        args.get(2).and_then(|a| a.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: rsa_keygen N BITS");
        std::process::exit(2);
    };
    for _ in 0..n {
        let start = std::time::Instant::now();
        if let Err(e) = kubepkg_funcs::bench_rsa_key(bits) {
            eprintln!("rsa_keygen: {e}");
            std::process::exit(1);
        }
        println!("{}", start.elapsed().as_nanos());
    }
}
