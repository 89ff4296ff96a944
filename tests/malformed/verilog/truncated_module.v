module truncated(a, y);
  input a;
  output y;
  wire n1;
  not g1(n1, a);
  buf g2(y, n1);
