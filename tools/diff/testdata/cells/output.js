text("a");
text("b");
return null;
