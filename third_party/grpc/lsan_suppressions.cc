// LeakSanitizer suppressions for every binary that links Debian's gRPC.
//
// gRPC's TLS handshakers run on gRPC's own detached threads, and OpenSSL
// keeps per-thread state for each of them (the error queue, the public and
// private random generators) that it frees when the thread exits. A process
// that exits while such a thread is still winding down leaves that state
// unreferenced, and LeakSanitizer (--config=asan, --config=fuzz) reports it:
// 904 bytes from ERR_clear_error, 40 from RAND_get0_public, once in about 40
// runs of session/distributed:security_test. Debian's libcrypto has no frame
// pointers, so with ASan's fast unwinder the report shows only CRYPTO_zalloc
// and the library: the suppression can name nothing narrower than memory that
// libcrypto itself allocated. Our code never calls OpenSSL; a leaked gRPC
// object of ours is still reported, from gRPC's and our own frames.
extern "C" const char* __lsan_default_suppressions() { return "leak:libcrypto.so\n"; }
