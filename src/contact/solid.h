// SPDX-License-Identifier: MIT
// Contacts of boxes and cylinders made from their corners, rim points,
// edges and sides (collide.c calls these in place of, or besides, ODE's
// colliders; for two cylinders, in place of them): against a plane, a box
// or a cylinder, with a speculative range per point. ODE's
// geoms are used for their poses and sizes (grown by the fixed margin).
#ifndef TSR_CONTACT_SOLID_H
#define TSR_CONTACT_SOLID_H

#include <ode/ode.h>

#include "dynamics/bodies.h"
#include "model/model.h"

typedef struct {
  const TsrModel *m;
  const TsrBodies *b;   // this step's state (point velocities)
  const double *extra;  // [n_shapes] each shape's sweep margin this step (collide.c sweep_margin)
  const double *push;   // [n_bodies] how much farther a body closing in on it can drive it toward fixed shapes
                        // (collide.c pushers), or NULL
} TsrSolidCtx;

// A cylinder or capsule lies along a plane (a box's face, another's flat
// end) when its axis is within ~11.5 degrees of parallel to it:
// |axis . normal| <= this.
#define TSR_ALONG_SIN 0.2

// Box or cylinder against a plane, in place of ODE's, with a speculative
// range. A moving box or cylinder is not inflated like a sphere (a box
// grown by its sweep margin has sharp edges a whole margin outside the
// body's: a log beside the 2.5 t box of log_tower got contacts through the
// box's bottom face and was pushed 22 cm into it), so against the plane,
// the ground of most scenes, its points are made here from its true
// geometry (grown by the fixed margin only): a box's eight corners, or
// each cylinder rim's lowest point (its support point along -n) and the
// three 90 degrees on (nearly level, four fixed on the cylinder instead:
// solid.c, rim_phase). A point is a contact when it is within the margin
// of the plane, or can reach it in this step: closer than h times its
// velocity toward the plane plus |g| h^2 (capped at sweep_margin's bound).
// That is per point, from the point's own velocity, and for a cylinder
// without its spin about its own axis, which only moves points along the
// rim, never below the rim's lowest one: with the shape's whole sweep
// margin (h |w| rho for any spin), the side points of a wheel spinning at
// 100 rad/s became contacts 35 cm above the road, whose rows, linear in
// the velocity, braked it (it rolled off at 7.1 m/s, not w R / 3 = 11.7).
// Depths are exact: a box landing at 7 m/s, flat, on an edge or on a
// corner, is met before it reaches the ground, and so is the far side of
// a tilted base (ODE's cylinder-plane gives only the deepest point of each
// rim until the base is nearly level: 12 mm into the ground at 7 m/s).
// The depth is as ODE's for the margin-grown shapes (margin minus the
// gap); at most max points, the deepest, into out. Returns the count; the
// contacts are as if from dCollide(g, plane) when g_first, else
// dCollide(plane, g).
int tsr_solid_plane(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID plane, int g_first, int max, dContactGeom *out);

// How far the surface of a moving box or cylinder (shape, geom g) can move
// in this step: its sweep margin, but for a cylinder without its spin about
// its own axis, which moves no point of its surface off the surface (a
// plate spinning at 7 rad/s, r = 0.45 m, would otherwise reach 5 cm out to
// every cable link above it: cable_spinner's cables got tangled in contacts
// with it). collide.c grows a sphere or capsule meeting it by this much.
double tsr_solid_reach(const TsrSolidCtx *x, int shape, dGeomID g);

// Contacts of a box or cylinder g with a box or cylinder f, one of them
// moving, from g's corners or rim points (toward f): those outside f (as
// grown by the margin) and closer to it than they travel toward it in this
// step (as for tsr_solid_plane, relative to f's own motion when f moves),
// with the normal from f's closest point, are speculative contacts added
// to ODE's n contacts of the pair; ODE reports each once it is within the
// margin. collide.c calls it both ways round, so a fixed box's or drum's
// corners and rim points meet a moving box's face too. With the margin at
// its default 0, two boxes stacked exactly had no contact when rounding
// left them 4e-17 m apart, and a tower of 30 sank 7 cm into itself and
// threw its boxes up to 3.4 m; a box dropped at 7 m/s onto a fixed drum
// went up to a step's travel into it. A moving cylinder whose rim points
// touch a box f gets those points, inside f, with the nearest face's
// normal and depth, instead of ODE's contacts: ODE's cylinder-box takes
// the rim for a polygon whose points change from step to step, and a
// cylinder standing on a box floor never came to rest (0.05 m/s after
// 3 s); with them go the ends of its side line over the face it lies on
// (a log over a box's edge; not a line deeper under the face than it is
// long over it, beyond just touching: a disc's end across the face's
// edge). ODE's deepest contact whose normal is more than ~30 degrees from
// each of theirs stays, while the shapes overlap by
// no more than a quarter of dedup (a box's edge across the rim, whose rim
// point beside the box took the side face's normal). Otherwise a point of
// g inside f (as grown) is left to ODE's contacts, unless it only just
// touches (within twice the margin or a quarter of dedup) and lies farther
// than dedup from each of them (ODE's box-box gives one point for crossing
// edges). Against a box, a point level with it and
// just beside it (within 5% of the smaller shape, across and in depth)
// takes the face toward g's centre, not the side its closest point is on:
// a 2.4 m box on 2.4 m logs was thrown 1.3 m. Points within `dedup` of one
// already in buf (the other shape's points, from the other direction) are
// left out. At most max contacts in buf, which holds ODE's n. Returns the
// new count.
int tsr_solid_pair(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, int g_first, dContactGeom *buf,
                   int n, int max, double dedup);

// Two boxes g (the pair's first geom) and f, one of them moving, not
// touching, whose closest points lie inside an edge of each (crossing
// edges: no corner is as close, so tsr_solid_pair finds nothing): one
// speculative contact at g's closest point, with the normal of the two
// closest points, when g's point can reach f in this step. A box landing
// edge-first across the edge of another went 2.5 cm into it at 7 m/s.
// With max already taken, in place of the shallowest contact when deeper
// than it. Returns the new count, as tsr_solid_pair.
int tsr_solid_box_edges(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, dContactGeom *buf, int n,
                        int max, double dedup);

// Two boxes g (the pair's first geom) and f, one of them moving, not
// touching, apart along a face's normal (the separating axis theorem: a
// face axis separates them at least as far as any edge pair): the other
// box's face most nearly against that face, clipped to it, gives the
// speculative contacts, at the clipped points within reach of the face in
// this step, with the face's normal (Sutherland-Hodgman clipping, as ODE's
// box-box does for boxes that touch). The corners of tsr_solid_pair miss
// this where no corner of either box lies over the other's face: a plank
// dropped at 5 m/s across a fixed one got normals from the other's edges
// and went 7.6 cm into it. At most max contacts, the nearest first, then
// those spanning the patch. Returns their count, in place of any in buf,
// or -1 when no face separates them within reach (tsr_solid_pair's and
// tsr_solid_box_edges' case). Boxes overlapping by up to `touch` (m) count
// as apart along that face: touching to round-off, where ODE's clipping
// keeps what rounding leaves on its side of the face.
int tsr_solid_box_faces(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, double touch,
                        dContactGeom *buf, int max);

// A moving box g against a capsule f (the pair's geom of f, grown by
// `inflation` beyond its radius and the margin's half): each corner of g
// that does not touch f yet but can reach it in this step (as in
// tsr_solid_pair) gives a speculative contact, with the normal from f's
// axis segment and the depth as against the grown geom (the caller takes
// the inflation off, as for ODE's contacts); corners within dedup of a
// contact in buf are left out. The capsule's own contacts with a box are
// its closest point and its end caps: a box tilted about an axis 17
// degrees off a log's, touching it at one point, turned about it and its
// far corner, which had no contact, went 61 mm into the log. Not for spheres: against the sphere clusters of six random
// rock piles the corners' contacts raised the largest penetration in four
// (by 0.2-0.7 cm). g_first: g is the pair's first geom. Returns the new
// count.
int tsr_solid_box_on_capsule(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, double inflation,
                             int g_first, dContactGeom *buf, int n, int max, double dedup);

// The side of a cylinder g against a box f, one of them moving, not
// touching, where neither a rim point nor a corner is nearest (a log
// falling across a box's edge): the point of g's axis nearest f, when it
// lies inside the axis segment, gives one speculative contact on the side,
// with the normal from f's closest point, while it can reach f in this
// step. When g lies along f (its axis within ~11 degrees of parallel to
// f's face toward it), the two ends of the part of its axis within f's
// extent along that face (over the face, or beside it along an edge) give
// one each instead, where they are not at its rims. With max already
// taken, a point goes in place of the shallowest contact when deeper than
// it (solid.c, speculative_slot). Returns the new count, as tsr_solid_pair.
int tsr_solid_cylinder_side(const TsrSolidCtx *x, dGeomID g, int shape, dGeomID f, int fshape, int g_first,
                            dContactGeom *buf, int n, int max, double dedup);

// Two cylinders a and b (ODE's contacts for them are made only when
// nothing here or in tsr_solid_pair finds the pair: its libccd gave the
// crossing logs of a falling cylinder tower contacts 30-40 cm deep with
// sideways normals, and threw them at 80 m/s). Parallel to within
// TSR_SOLID_PARALLEL_COS (logs in a pile), they meet side to side along a
// line: each one's rim point toward the other's axis, those within the
// other's length, make the contacts, with the normal from the other's axis
// (never a cap's: at equal lengths a rim point lies on the other's cap
// edge too) and their exact depth, or as speculative contacts while they
// can reach it in this step (ODE's one point let a pyramid of three logs
// roll apart, 38 cm in 3 s with margin 0); a point within dedup of one
// already made (the other's rim point at the same end) is left out.
// Crossing (or parallel ones skewed so that neither rim point meets),
// with the axes' closest points inside both axis segments, their sides
// meet as capsules' would: one contact, depth r_a + r_b - d, normal along
// the axes' common perpendicular (or speculative), or a disc's (shorter
// than wide) face with its depth where that is nearer; near-parallel ones get
// that point too, beside their rim points, where it is not within dedup of
// one (skewed by a few degrees, they meet in the middle first). Otherwise
// an end is nearest: each rim's point nearest the other's axis, with its
// exact distance, or, where the other's side lies along that end's flat
// face (its axis within ~11 degrees of the face's plane), the two ends of
// the other's side line over the face, with the face's normal. Returns the
// count, in place of any contacts in buf, or -1: coaxial, cap to cap, or
// nothing found (tsr_solid_pair's rim points).
#define TSR_SOLID_PARALLEL_COS 0.985
int tsr_solid_cylinders(const TsrSolidCtx *x, dGeomID a, int sa, dGeomID b, int sb, dContactGeom *buf, int max,
                        double dedup);

// A last check of a pair with a cylinder (a and b: the pair's geoms, in
// dCollide's order, each a box, cylinder or capsule), after every other
// generator: the deepest of each one's sample points inside the other
// (a box's surface on a 5 x 5 grid per face, a cylinder's rims, side and
// flat ends, a capsule's axis), with the other's normal there. When it lies
// deeper than every contact in buf by more than tol, or (with far > 0)
// deeper than every one by more than the rim points may miss the lowest
// by (solid.c, rim_phase) and farther than far from each, it is added (in
// place of the shallowest when buf holds max). The generators above meet
// features they name (corners, rim points toward an axis, crossing axes);
// ODE's cylinder-box takes a polygon for the rim, and a cylinder falling
// rim-first across a box's edge in a pile of mixed shapes kept one 2 cm
// contact with a sideways normal while it went 9 cm into the box. Returns
// the new count.
int tsr_solid_deepest(dGeomID a, dGeomID b, dContactGeom *buf, int n, int max, double tol, double far);

// The candidate contacts cand[0..nc) of a pair into out (at most max),
// deepest first, leaving out each within dedup of a deeper one kept, so
// that which of two near points stays does not depend on which shape the
// model lists first (taken first come, first kept, a log's rim point
// 2.5 mm deep hid a disc's 8 mm deep one beside it, and the pair listed
// the other way round got the 8 mm one: tests/physics/test_contact_invariance.c).
// cand is sorted in place (equal depths by position). Returns the count.
int tsr_solid_keep_deepest(dContactGeom *cand, int nc, dContactGeom *out, int max, double dedup);

// The core point of a capsule cap against a cylinder cyl: the point of the
// capsule's axis segment with the least signed distance to the cylinder
// (convex along the segment: a golden-section search), with the cylinder's
// normal there (its nearest side or cap when inside) and depth = radius
// less that distance, into *g as if from dCollide(cap, cyl) when cap_first,
// else dCollide(cyl, cap). ODE's capsule-cylinder (libccd's MPR) gave a
// capsule falling on a cylinder in a pile of mixed shapes one contact 11-16
// cm deep whose normal was 50-70 degrees off the overlap's (3-10 cm), and
// the two went on into each other for seven steps.
void tsr_solid_capsule_core(dGeomID cap, dGeomID cyl, int cap_first, dContactGeom *g);

#endif
