module inv(a, y);
  input a;
  output y;
  not g(y, a);
endmodule

module top(x, z);
  input x;
  output z;
  inv u1(.a(x),
         .zn(z));
endmodule
