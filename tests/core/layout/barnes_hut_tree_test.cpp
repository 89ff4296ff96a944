#include "layout/barnes_hut_tree.hpp"
#include "layout/force_atlas2.hpp"

#include <gtest/gtest.h>

#include <cmath>

using namespace gsr::layout;

namespace {

double norm(Point2 p)
{
    return std::sqrt(p.x * p.x + p.y * p.y);
}

std::vector<Point2> all_leaf_fields(const BarnesHutTree& t, std::size_t n, double theta)
{
    std::vector<Point2> f(n);
    BarnesHutTree::InteractionList list;
    for (std::size_t l = 0; l < t.leaf_count(); ++l) t.leaf_fields(l, theta, f, list);
    return f;
}

} // namespace

TEST(BarnesHutTree, TwoPointsPushEachOtherApart)
{
    BarnesHutTree t;
    const std::vector<Point2> p{{0, 0}, {2, 0}};
    const std::vector<double> m{1, 3};
    t.build(p, m);
    const Point2 a = t.repulsion_field(0, 1.2), b = t.repulsion_field(1, 1.2);
    EXPECT_DOUBLE_EQ(a.x, -1.5); // m_j (p_i - p_j) / d^2 = 3 * (-2) / 4
    EXPECT_DOUBLE_EQ(b.x, 0.5);
    const auto f = all_leaf_fields(t, 2, 1.2);
    EXPECT_NEAR(f[0].x, -1.5, 1e-6);
    EXPECT_NEAR(f[1].x, 0.5, 1e-6);
}

TEST(BarnesHutTree, ApproximatesTheExactField)
{
    const std::size_t n = 20000;
    const auto p = random_positions(n, 1000, 3);
    std::vector<double> m(n);
    for (std::size_t i = 0; i < n; ++i) m[i] = 1 + static_cast<double>(i % 7);
    BarnesHutTree t;
    t.build(p, m);
    EXPECT_GT(t.leaf_count(), 100u);
    const auto leaf = all_leaf_fields(t, n, 1.2);
    double point_error = 0, leaf_error = 0, size = 0;
    for (std::size_t i = 0; i < n; i += 37) {
        const Point2 exact = t.exact_repulsion_field(i), near = t.repulsion_field(i, 1.2);
        point_error += norm({near.x - exact.x, near.y - exact.y});
        leaf_error += norm({leaf[i].x - exact.x, leaf[i].y - exact.y});
        size += norm(exact);
    }
    EXPECT_LT(point_error / size, 0.03);
    EXPECT_LT(leaf_error / size, 0.03);
    // theta 0 opens every cell: exact up to rounding (single precision in the leaf sums).
    const auto exact_leaf = all_leaf_fields(t, n, 0.0);
    for (std::size_t i = 0; i < n; i += 997) {
        const Point2 exact = t.exact_repulsion_field(i);
        EXPECT_NEAR(exact_leaf[i].x, exact.x, 1e-3 * norm(exact) + 1e-6);
    }
}

TEST(BarnesHutTree, CoincidentPointsGiveFiniteFields)
{
    std::vector<Point2> p(100, Point2{5, 5});
    p.push_back({6, 5});
    const std::vector<double> m(p.size(), 1.0);
    BarnesHutTree t;
    t.build(p, m);
    const auto f = all_leaf_fields(t, p.size(), 1.2);
    for (std::size_t i = 0; i < p.size(); ++i) {
        EXPECT_TRUE(std::isfinite(f[i].x) && std::isfinite(f[i].y));
        EXPECT_TRUE(std::isfinite(t.repulsion_field(i, 1.2).x));
    }
    EXPECT_NEAR(f[100].x, 100.0, 1e-3); // 100 unit masses at distance 1
}

TEST(BarnesHutTree, NearlyCoincidentPointsGiveFiniteFields)
{
    // 1e-20 apart, the float repulsion m / d2 overflowed to inf, and the layout went NaN.
    const std::vector<Point2> p{{0, 0}, {1e-20, 0}, {5, 5}, {1e-160, 1e-160}};
    const std::vector<double> m(p.size(), 1.0);
    BarnesHutTree t;
    t.build(p, m);
    const auto f = all_leaf_fields(t, p.size(), 1.2);
    for (std::size_t i = 0; i < p.size(); ++i) {
        EXPECT_TRUE(std::isfinite(f[i].x) && std::isfinite(f[i].y)) << i;
        const Point2 exact = t.exact_repulsion_field(i);
        EXPECT_TRUE(std::isfinite(exact.x) && std::isfinite(exact.y)) << i;
        EXPECT_TRUE(std::isfinite(t.repulsion_field(i, 1.2).x)) << i;
    }
    // The far point feels the three near the origin as three unit masses about 7.07 away.
    EXPECT_NEAR(f[2].x, 3 * 5 / 50.0, 1e-6);
}

TEST(BarnesHutTree, DeepClustersNeedNoRecursion)
{
    // Points at ever smaller distances: the tree reaches its depth limit.
    std::vector<Point2> p;
    for (int i = 0; i < 5000; ++i)
        p.push_back({std::ldexp(1.0, -(i % 60)), static_cast<double>(i % 3)});
    const std::vector<double> m(p.size(), 2.0);
    BarnesHutTree t;
    t.build(p, m);
    const auto f = all_leaf_fields(t, p.size(), 1.2);
    for (const Point2& v : f) EXPECT_TRUE(std::isfinite(v.x) && std::isfinite(v.y));
}
