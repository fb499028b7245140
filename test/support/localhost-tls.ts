// A self-signed certificate and key for 127.0.0.1 (P-256, valid until 2126), for tests that need
// a TLS server of their own. Made once with:
//   openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \
//     -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1
export const LOCALHOST_CERT = `-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUPVxBM6CIlHFIwXS3Kr5keleoRYswCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyNTAyMjYzMFoYDzIxMjYxMTAx
MDIyNjMwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAARr9QyPN5JQpkXI99WbvjUfMjtKQbg6EMW5TXUplnmsLh9KKkk+vuxm
zhsvblhSuTNZtyga/gr9qCBM1Pxti0rNo2QwYjAdBgNVHQ4EFgQUOVpWeK4odZWR
nQMtJj0ZvpoukIIwHwYDVR0jBBgwFoAUOVpWeK4odZWRnQMtJj0ZvpoukIIwDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
IQCBcaEytcLENBpFCOxs1SqXX2kjG5YNpfoygQ3Olx1PJwIhAK9Bj+eNSuEZfvZP
jlZJgbFCvuaLQMttfwLcOwuMC6IT
-----END CERTIFICATE-----
`;
export const LOCALHOST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgXVODAKFVGGp9UVr3
th8cD27UFX5skOeY/NT/GD+82n2hRANCAARr9QyPN5JQpkXI99WbvjUfMjtKQbg6
EMW5TXUplnmsLh9KKkk+vuxmzhsvblhSuTNZtyga/gr9qCBM1Pxti0rN
-----END PRIVATE KEY-----
`;
