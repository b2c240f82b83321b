// Contacts of the Super-Helix reference as velocity-level constraints (docs/models/
// super-helices.md, "Contacts"). The paper (§4.5) names only a tip force as the boundary
// condition; obstacles are this reference's choice: the contact problem of
// src/reference/contact_impulses.hpp at the quadrature points, its A⁻¹ applied by the method
// that solved the step (StepSystem::respond: the composite LDLᵀ, or the recursion's two passes).
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "common/colliders.hpp"
#include "reference/contact_impulses.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/super_helix/step_system.hpp"

namespace hairsim::super_helix::detail {
namespace {

// A point and obstacle pair: the generic contact, the rod point its response needs and its arc
// length in its element.
struct Contact {
  ::hairsim::reference::PointContact contact;
  RodPoint point;
  double u = 0;
};

// Spatial velocities (ω, v) at every element's start for rates q̇, the clamp moving as `root`.
std::vector<Vec6> start_velocities(const SuperHelix& rod, const std::vector<ElementMap>& maps,
                                   const RootState& root, const VecX& qdot) {
  const int k = rod.coordinates_per_element();
  std::vector<Vec6> out(rod.elements.size());
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const int parent = rod.elements[q].parent;
    if (parent < 0) {
      out[q] << root.angular_velocity, root.velocity;
      continue;
    }
    const ElementMap& m = maps[std::size_t(parent)];
    out[q] = m.phi * out[std::size_t(parent)] + m.H * qdot.segment(parent * k, k);
  }
  return out;
}

std::vector<Contact> find_contacts(const SuperHelix& rod, double h, const VecX& qdot,
                                   const std::vector<ElementStart>& starts,
                                   const std::vector<ElementMap>& maps,
                                   const std::vector<Vec6>& velocities) {
  // The obstacles where their motion puts them at the step's end (a head's colliders).
  const ::hairsim::reference::Obstacles obstacles(rod.obstacle_motion, rod.time + h);
  const kernels::RigidPose<double>* pose = obstacles.pose();
  const int k = rod.coordinates_per_element();
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  std::vector<Contact> out;
  std::vector<double> arc(rod.elements.size(), 0.0);  // each element's start, from the clamp
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const int parent = rod.elements[q].parent;
    if (parent >= 0) arc[q] = arc[std::size_t(parent)] + rod.elements[std::size_t(parent)].length;
  }
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const double length = rod.elements[q].length;
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const double node = rule.nodes[g];
      if (arc[q] + node * length < rod.contact_start) continue;
      const RodPoint p = rod_point(rod, starts, int(q), node * length);
      // The velocity against the obstacles' surfaces (they move together: one rigid motion).
      const Vec3 velocity =
          p.X * velocities[q] + p.G * qdot.segment(int(q) * k, k) - obstacles.velocity(p.position);
      MatX jacobian;  // computed for the points that touch only
      for (const kernels::Collider<double>& c : rod.colliders) {
        const double reach = 2 * h * velocity.norm() + 0.01 * length;
        if (!(::hairsim::reference::posed_distance(c, p.position, pose).distance -
                  rod.contact_thickness <
              reach))
          continue;
        if (jacobian.size() == 0) jacobian = point_jacobian(rod, maps, p);
        if (auto contact = ::hairsim::reference::touching(c, p.position, rod.contact_thickness,
                                                          reach, jacobian, velocity, pose)) {
          contact->mass = rod.linear_density * rule.weights[g] * length;
          out.push_back({*contact, p, node * length});
        }
      }
    }
  }
  return out;
}

// Each contact's drift (kernels::ContactBlock): its point on the coordinates q + h q̇₀ (q̇₀ the
// rates at the step's start; the clamp at its end) against its linearised motion x + h J q̇₀.
// Not at the free rates: a rod resting on a ball falls through it at those, and their drifts
// (micrometres) were more than any one rate change could meet at all of its nearly dependent
// contact points (PGS at its sweep cap in 38 of 938 steps of the falling-rod test).
void add_drifts(const SuperHelix& rod, const RootState& root, double h,
                const std::vector<Contact>& found,
                std::vector<::hairsim::reference::PointContact>& contacts) {
  if (found.empty()) return;
  const VecX start_rates = rates(rod);
  SuperHelix reached = rod;
  set_coordinates(reached, coordinates(rod) + h * start_rates);
  const std::vector<ElementStart> starts = element_starts(reached, root);
  for (std::size_t i = 0; i < found.size(); ++i) {
    const Vec3 x = rod_point(reached, starts, found[i].point.element, found[i].u).position;
    const Vec3 linear_end = found[i].point.position + h * (found[i].contact.jacobian * start_rates);
    contacts[i].drift = contacts[i].directions.col(0).dot(x - linear_end);
  }
}

}  // namespace

StepReport resolve_contacts(const SuperHelix& rod, const StepSystem& system, double h, VecX& qdot) {
  const RootState root = root_state(rod, rod.time + h);
  const std::vector<ElementStart> starts = element_starts(rod, root);
  const std::vector<ElementMap> maps = element_maps(rod, starts);
  const std::vector<Vec6> velocities = start_velocities(rod, maps, root, qdot);
  const std::vector<Contact> found = find_contacts(rod, h, qdot, starts, maps, velocities);
  std::vector<::hairsim::reference::PointContact> contacts;
  for (const Contact& c : found) contacts.push_back(c.contact);
  add_drifts(rod, root, h, found, contacts);
  const ::hairsim::reference::ImpulseReport r = ::hairsim::reference::apply_contact_impulses(
      contacts, h, rod.contact_sweeps,
      [&](std::size_t i, const MatX& forces) {
        return system.respond(found[i].point, found[i].contact.jacobian, forces);
      },
      qdot);
  StepReport report;
  report.contacts = r.contacts;
  report.active_contacts = r.active;
  report.sweeps = r.sweeps;
  report.converged = r.converged;
  report.residual = r.residual;
  return report;
}

}  // namespace hairsim::super_helix::detail
