// BPMN 2.0 XML of one process: a start event, its steps as tasks in order, an end event, the
// sequence flows between them, and a diagram so modellers (Camunda, bpmn.io) lay it out on open.
import { esc, XML_DECL } from './xml.js';

interface BpmnStep {
  id: string;
  name: string;
  /** Who performs the step; shown as documentation, since lanes would need a role model. */
  actor?: string | null;
}

export function bpmn(process: { id: string; name: string; description?: string | null }, steps: BpmnStep[]): Buffer {
  const pid = `Process_${process.id}`;
  const nodes = [
    { id: 'StartEvent_1', tag: 'startEvent', name: 'Début', doc: null as string | null },
    ...steps.map((s) => ({ id: `Task_${s.id}`, tag: 'task', name: s.name, doc: s.actor ?? null })),
    { id: 'EndEvent_1', tag: 'endEvent', name: 'Fin', doc: null },
  ];
  // A flow from each node to the next; the last has none.
  const flows = nodes.flatMap((n, i) => {
    const next = nodes[i + 1];
    return next ? [{ id: `Flow_${i + 1}`, from: n.id, to: next.id }] : [];
  });
  const incoming = new Map(flows.map((f) => [f.to, f.id]));
  const outgoing = new Map(flows.map((f) => [f.from, f.id]));

  const elements = nodes.map((n) => {
    const inner = [
      n.doc ? `      <bpmn:documentation>${esc(n.doc)}</bpmn:documentation>` : '',
      incoming.has(n.id) ? `      <bpmn:incoming>${incoming.get(n.id)}</bpmn:incoming>` : '',
      outgoing.has(n.id) ? `      <bpmn:outgoing>${outgoing.get(n.id)}</bpmn:outgoing>` : '',
    ].filter(Boolean);
    return `    <bpmn:${n.tag} id="${n.id}" name="${esc(n.name)}">\n${inner.join('\n')}\n    </bpmn:${n.tag}>`;
  });
  const flowXml = flows.map((f) => `    <bpmn:sequenceFlow id="${f.id}" sourceRef="${f.from}" targetRef="${f.to}" />`);

  // Diagram: left to right, events 36x36, tasks 100x80, 150 pt apart.
  const x = (i: number) => 100 + i * 150;
  const shapes = nodes.map((n, i) => {
    const task = n.tag === 'task';
    const [w, h, y] = task ? [100, 80, 80] : [36, 36, 102];
    const cx = task ? x(i) - 32 : x(i);
    return `      <bpmndi:BPMNShape id="${n.id}_di" bpmnElement="${n.id}">\n        <dc:Bounds x="${cx}" y="${y}" width="${w}" height="${h}" />\n      </bpmndi:BPMNShape>`;
  });
  const edges = flows.map((f, i) => {
    const fromX = i === 0 ? x(0) + 36 : x(i) + 68;
    const toX = x(i + 1) - (i + 1 === nodes.length - 1 ? 0 : 32);
    return `      <bpmndi:BPMNEdge id="${f.id}_di" bpmnElement="${f.id}">\n        <di:waypoint x="${fromX}" y="120" />\n        <di:waypoint x="${toX}" y="120" />\n      </bpmndi:BPMNEdge>`;
  });

  const xml = `${XML_DECL}<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" xmlns:di="http://www.omg.org/spec/DD/20100524/DI" id="Definitions_${process.id}" targetNamespace="https://workspace-consulting.example/bpmn" exporter="Workspace Consulting sandbox" exporterVersion="1.0.0">
  <bpmn:process id="${pid}" name="${esc(process.name)}" isExecutable="false">
${process.description ? `    <bpmn:documentation>${esc(process.description)}</bpmn:documentation>\n` : ''}${elements.join('\n')}
${flowXml.join('\n')}
  </bpmn:process>
  <bpmndi:BPMNDiagram id="Diagram_${process.id}">
    <bpmndi:BPMNPlane id="Plane_${process.id}" bpmnElement="${pid}">
${shapes.join('\n')}
${edges.join('\n')}
    </bpmndi:BPMNPlane>
  </bpmndi:BPMNDiagram>
</bpmn:definitions>
`;
  return Buffer.from(xml, 'utf8');
}
