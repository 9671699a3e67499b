//! Builds the OpenMP peer (`omp/omp.c`) with the system C compiler and
//! `-fopenmp`, and links libgomp.

fn main() {
    println!("cargo:rerun-if-changed=omp/omp.c");
    cc::Build::new()
        .file("omp/omp.c")
        .flag("-fopenmp")
        .opt_level(2)
        .compile("tine_peers_omp");
    // -fopenmp at link time would pull libgomp in; rustc links with its own
    // flags, so name the library.
    println!("cargo:rustc-link-lib=dylib=gomp");
}
