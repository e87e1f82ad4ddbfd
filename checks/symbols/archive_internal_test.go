package symbols

import "testing"

func TestLibraryKey(t *testing.T) {
	for in, want := range map[string]string{
		"tensorflow/libtensorflow_framework.so.2":                        "tensorflow/libtensorflow_framework.so",
		"google/protobuf/pyext/_message.cpython-311-x86_64-linux-gnu.so": "google/protobuf/pyext/_message.so",
		"numpy.libs/libgfortran-040039e1.so.5.0.0":                       "numpy.libs/libgfortran.so",
		"pkg/_ext.abi3.so": "pkg/_ext.so",
		"torch-2.0.0.data/platlib/torch/lib/libc10.so":                                  "torch/lib/libc10.so",
		"libprotobuf.so.32.0.12":                                                        "libprotobuf.so",
		"lib/python3.12/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so": "tensorflow/python/_pywrap_tensorflow_internal.so",
		"lib/python3.11/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so": "tensorflow/python/_pywrap_tensorflow_internal.so",
		"site-packages/x/_ext.cpython-312-x86_64-linux-gnu.so":                          "x/_ext.so",
		"lib/libtensorflow_framework.so.2":                                              "lib/libtensorflow_framework.so",
		"weird":                                                                         "weird",
		"x.data/headers/libfoo.so.1":                                                    "x.data/headers/libfoo.so",
		".data/purelib/libfoo.so":                                                       ".data/purelib/libfoo.so",
		"Lib/site-packages/pkg/_ext.cp312-win_amd64.so":                                 "pkg/_ext.cp312-win_amd64.so",
		"pkg-1.0.data/purelib/lib/python3.12/site-packages/x.so":                        "lib/python3.12/site-packages/x.so",
	} {
		if got := libraryKey(in); got != want {
			t.Errorf("libraryKey(%q) = %q, want %q", in, got, want)
		}
	}
}
