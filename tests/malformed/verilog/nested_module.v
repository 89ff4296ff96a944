module outer(a);
  input a;
module inner(b);
  input b;
endmodule
