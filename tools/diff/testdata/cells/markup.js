// A hostile target string: diff.html must show it as text.
return "<script>alert(1)</script>";
