import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { imageTag, readComposeFile, readRepoFile } from '../support/composeFile';

/**
 * The example Kubernetes manifests (deploy/kubernetes/), checked without a cluster: each object
 * against the Kubernetes API schema (kubernetes-models), and against the compose file: the same
 * image, the same processes, the same environment variables by name.
 */

const DIR = 'deploy/kubernetes';
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
};

interface Manifest {
  file: string;
  object: { apiVersion: string; kind: string; metadata: { name: string } } & Record<string, unknown>;
}

const manifests: Manifest[] = readdirSync(path.resolve(__dirname, '..', '..', DIR))
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .flatMap((file) =>
    parseAllDocuments(readRepoFile(`${DIR}/${file}`)).map((document) => {
      expect({ file, errors: document.errors }).toEqual({ file, errors: [] });
      return { file, object: document.toJS() as Manifest['object'] };
    }),
  );
const kustomization = parseAllDocuments(readRepoFile(`${DIR}/kustomization.yaml`))[0]!.toJS() as {
  resources: string[];
  secretGenerator: { name: string; envs: string[] }[];
  images: { name: string; newName: string; newTag: string }[];
};
const deployments = manifests
  .filter(({ object }) => object.kind === 'Deployment')
  .map(({ object }) => object as unknown as IDeployment & { metadata: { name: string } });
const compose = readComposeFile();

function container(deployment: IDeployment): IContainer {
  expect(deployment.spec!.template.spec!.containers).toHaveLength(1);
  return deployment.spec!.template.spec!.containers[0]!;
}

/** Every variable a container is given: its env, and the keys of the ConfigMaps and Secrets it takes whole. */
function environmentNames(deployment: IDeployment): string[] {
  const names = (container(deployment).env ?? []).map((variable) => variable.name);
  for (const source of container(deployment).envFrom ?? []) {
    if (source.configMapRef) {
      const configMap = manifests.find(
        ({ object }) => object.kind === 'ConfigMap' && object.metadata.name === source.configMapRef!.name,
      );
      names.push(...Object.keys(configMap!.object.data as Record<string, string>));
    }
    if (source.secretRef) {
      const secret = kustomization.secretGenerator.find((generator) => generator.name === source.secretRef!.name);
      for (const file of secret!.envs) names.push(...Object.keys(parseEnv(readRepoFile(`${DIR}/${file}.example`))));
    }
  }
  return names;
}

describe('deploy/kubernetes', () => {
  it('holds objects the Kubernetes API schema accepts', () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const { file, object } of manifests) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect({ file, kind: `${object.apiVersion}/${object.kind}`, known: Boolean(Model) }).toMatchObject({
        known: true,
      });
      expect(() => new Model!(object as never).validate()).not.toThrow();
    }
  });

  it('applies every manifest but the optional autoscalers', () => {
    const files = [...new Set(manifests.map(({ file }) => file))];
    expect(kustomization.resources.sort()).toEqual(files.filter((file) => file !== 'hpa.yaml').sort());
  });

  it('runs the API and one Deployment per compose worker service, with the same commands', () => {
    const composeApps = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(composeApps.map(([name]) => name).sort());
    for (const [name, service] of composeApps) {
      const deployment = deployments.find((d) => d.metadata.name === name)!;
      expect({ name, args: container(deployment).args }).toEqual({ name, args: service.command });
      // The image's entrypoint (tini) must stay PID 1; `command` would replace it.
      expect({ name, command: container(deployment).command }).toEqual({ name, command: undefined });
      expect({ name, replicas: deployment.spec!.replicas }).toEqual({ name, replicas: service.deploy?.replicas });
    }
  });

  it("runs the compose file's image, which kustomize points at a registry", () => {
    const composeImage = imageTag(compose.services.api!).name;
    for (const deployment of deployments) expect(container(deployment).image).toBe(composeImage);
    expect(kustomization.images.map((image) => image.name)).toEqual([composeImage]);
  });

  it('gives each container the environment variables compose gives its service, by name', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const composeNames = Object.keys(compose.services[name]!.environment ?? {});
      const missing = composeNames.filter((variable) => !environmentNames(deployment).includes(variable));
      expect({ name, missing }).toEqual({ name, missing: [] });
    }
    // The API's credentials reach the API only.
    for (const deployment of deployments.filter((d) => d.metadata.name !== 'api'))
      expect(environmentNames(deployment)).not.toContain('API_KEYS');
  });

  it('probes every container on /health (liveness) and /ready (readiness)', () => {
    for (const deployment of deployments) {
      const { livenessProbe, readinessProbe, startupProbe, ports } = container(deployment);
      const name = deployment.metadata.name;
      expect({ name, path: livenessProbe?.httpGet?.path }).toEqual({ name, path: '/health' });
      expect({ name, path: readinessProbe?.httpGet?.path }).toEqual({ name, path: '/ready' });
      expect({ name, path: startupProbe?.httpGet?.path }).toEqual({ name, path: '/health' });
      const port = ports!.find((p) => p.name === livenessProbe!.httpGet!.port)!;
      const env = Object.fromEntries((container(deployment).env ?? []).map((v) => [v.name, v.value]));
      expect(String(port.containerPort)).toBe(name === 'api' ? env.PORT : env.WORKER_METRICS_PORT);
    }
  });

  it('sizes each role: CPU and memory requests, a memory limit at or above the request', () => {
    const toMi = (quantity: string) => Number.parseFloat(quantity) * (quantity.endsWith('Gi') ? 1024 : 1);
    for (const deployment of deployments) {
      const { resources } = container(deployment);
      const name = deployment.metadata.name;
      expect({ name, cpu: resources?.requests?.cpu, memory: resources?.requests?.memory }).toEqual({
        name,
        cpu: expect.anything(),
        memory: expect.stringMatching(/^\d+(Mi|Gi)$/),
      });
      expect(toMi(String(resources!.limits!.memory))).toBeGreaterThanOrEqual(toMi(String(resources!.requests!.memory)));
    }
    // The reading roles set their threads: Node counts the node's CPUs, not the pod's.
    for (const name of ['worker-fetch', 'worker-browser']) {
      const env = container(deployments.find((d) => d.metadata.name === name)!).env ?? [];
      expect(env.map((variable) => variable.name)).toContain('CONVERT_THREADS');
    }
  });

  it('runs as the unprivileged user of the image', () => {
    for (const deployment of deployments) {
      const pod = deployment.spec!.template.spec!;
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container(deployment).securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
    }
  });

  it('takes secrets from files git ignores, whose examples hold no values', () => {
    const ignored = readRepoFile('.gitignore').split('\n');
    for (const generator of kustomization.secretGenerator) {
      for (const file of generator.envs) {
        expect(ignored).toContain(`${DIR}/*secrets.env`);
        expect(file).toMatch(/secrets\.env$/);
        const example = parseEnv(readRepoFile(`${DIR}/${file}.example`));
        expect({ file, values: Object.values(example).filter(Boolean) }).toEqual({ file, values: [] });
      }
    }
  });
});
