module beh(c, d, q);
  input c, d;
  output reg q;
  always @(posedge c) begin
    q <= d;
