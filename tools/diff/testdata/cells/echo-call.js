// A nested call through the profile's guest dialect (suites/framework/dialect).
return await call("echo", {m: "hi"});
