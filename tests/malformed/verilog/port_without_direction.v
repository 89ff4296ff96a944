module nodir(a, y);
  input a;
  not g(y, a);
endmodule
